// What a data package is: a prebuilt dataset shipped with the product, generated (or read
// from the repository) for the parameters a caller chooses, and loaded like any file.
import { CSV_FORMAT, type DataType, type ObjectType, type Prescription } from '../prescription.js';

export interface PackageParameter {
  type: 'date';
  description: string;
  /** The value used when the caller sends none (may depend on today's date). */
  default: string;
}

export interface PackageColumn {
  id: string;
  /** The model object's title (what AQL and AI assistants call it). */
  title: string;
  dataType: DataType;
  objectType: ObjectType;
  labelOf?: string;
  description: string;
}

export interface DataPackage {
  id: string;
  name: string;
  description: string;
  /** The dataset (cluster) it loads; its primary-key attribute is what other data joins to. */
  dataset: string;
  primaryKey: string;
  columns: readonly PackageColumn[];
  parameters(): Record<string, PackageParameter>;
  /** Checks the caller's parameters (throws `invalid`) and fills in the defaults. */
  resolve(input: unknown): Record<string, string>;
  /** The file's text for resolved parameters; the header row holds the column ids. */
  csv(params: Record<string, string>): string;
  /** What an existing column must be to reference the package dataset. */
  joinable: {
    dataType: DataType;
    /** Said in 400 answers: "… must hold <what>". */
    what: string;
    /** SQL condition true for a non-null value that cannot match (column given quoted). */
    badValue?: (column: string) => string;
  };
}

export { CSV_FORMAT };

/**
 * The explicit prescription a package is loaded with, so every type is exact; the package's
 * descriptions become the dataset's and its objects' (what AI assistants read).
 */
export function packagePrescription(pkg: DataPackage): Prescription {
  return {
    clustername: pkg.dataset,
    primarykey: pkg.primaryKey,
    description: pkg.description,
    format: CSV_FORMAT,
    columns: pkg.columns.map((c) => ({
      id: c.id,
      originalheader: c.id,
      objectType: c.objectType,
      dataType: c.dataType,
      label: c.title,
      description: c.description,
      ...(c.labelOf ? { labelOf: c.labelOf } : {}),
    })),
  };
}

/** The package as `GET store/package` lists it. */
export function describePackage(pkg: DataPackage) {
  return {
    id: pkg.id,
    name: pkg.name,
    description: pkg.description,
    datasets: [
      {
        name: pkg.dataset,
        primaryKey: pkg.primaryKey,
        joinsTo: `${pkg.joinable.dataType} columns holding ${pkg.joinable.what}`,
        columns: pkg.columns.map((c) => ({
          id: c.id,
          title: c.title,
          dataType: c.dataType,
          objectType: c.objectType,
          ...(c.labelOf ? { labelOf: c.labelOf } : {}),
          description: c.description,
        })),
      },
    ],
    parameters: pkg.parameters(),
  };
}
