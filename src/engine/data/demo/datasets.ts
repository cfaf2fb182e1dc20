// The demo datasets' files and prescriptions: carriers and airports (dimensions) and flights
// (facts). Titles are what AQL and AI assistants use, so every one is unique in the model.
import { toCsv } from '../csv-write.js';
import type { Column, DataType, ObjectType, Prescription } from '../prescription.js';
import { CSV_FORMAT } from '../packages/package.js';
import { AIRPORTS } from './airports.js';
import { CARRIERS } from './carriers.js';
import type { FlightRow } from './flights.js';

export interface DemoDataset {
  name: string;
  /** Where the file is written in the demo project's storage. */
  source: string;
  prescription: Prescription;
  csv: string;
}

type Col = [
  id: string,
  title: string,
  objectType: ObjectType,
  dataType: DataType,
  extra?: Partial<Column>,
];

function prescription(name: string, primarykey: string, cols: Col[]): Prescription {
  return {
    clustername: name,
    primarykey,
    format: CSV_FORMAT,
    columns: cols.map(([id, label, objectType, dataType, extra]) => ({
      id,
      originalheader: id,
      label,
      objectType,
      dataType,
      ...extra,
    })),
  };
}

const CARRIER_COLS: Col[] = [
  ['code', 'Carrier Code', 'A', 'string'],
  ['name', 'Carrier Name', 'L', 'string', { labelOf: 'code' }],
];

const AIRPORT_COLS: Col[] = [
  ['code', 'Airport Code', 'A', 'string'],
  ['name', 'Airport Name', 'L', 'string', { labelOf: 'code' }],
  ['city', 'Origin City', 'A', 'string'],
  ['state', 'Origin State', 'A', 'string'],
  ['region', 'Origin Region', 'A', 'string'],
];

const FLIGHT_COLS: Col[] = [
  ['flight_id', 'Flight', 'A', 'integer'],
  ['flight_date', 'Flight Date', 'A', 'date', { reference: 'calendar' }],
  ['carrier', 'Carrier', 'A', 'string', { reference: 'carriers' }],
  ['origin', 'Origin', 'A', 'string', { reference: 'airports' }],
  ['dest', 'Destination', 'A', 'string'],
  ['distance', 'Distance', 'F', 'integer'],
  ['dep_delay', 'Departure Delay', 'F', 'number'],
  ['arr_delay', 'Arrival Delay', 'F', 'number'],
  ['cancelled', 'Cancelled', 'A', 'boolean'],
  ['passengers', 'Passengers', 'F', 'integer'],
];

const ids = (cols: Col[]) => cols.map((c) => c[0]);

export function demoDatasets(flights: readonly FlightRow[]): DemoDataset[] {
  return [
    {
      name: 'carriers',
      source: '/demo/carriers.csv',
      prescription: prescription('carriers', 'code', CARRIER_COLS),
      csv: toCsv(
        ids(CARRIER_COLS),
        CARRIERS.map((c) => [c.code, c.name]),
      ),
    },
    {
      name: 'airports',
      source: '/demo/airports.csv',
      prescription: prescription('airports', 'code', AIRPORT_COLS),
      csv: toCsv(
        ids(AIRPORT_COLS),
        AIRPORTS.map((a) => [a.code, a.name, a.city, a.state, a.region]),
      ),
    },
    {
      name: 'flights',
      source: '/demo/flights.csv',
      prescription: prescription('flights', 'flight_id', FLIGHT_COLS),
      csv: toCsv(
        ids(FLIGHT_COLS),
        flights.map((f) => ids(FLIGHT_COLS).map((id) => f[id as keyof FlightRow])),
      ),
    },
  ];
}
