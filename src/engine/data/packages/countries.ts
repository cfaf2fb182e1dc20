// The `countries` package: the ISO 3166-1 countries with their UN M49 region and subregion.
// The data ships in the repository (countries.csv, written by hand, one row per code).
import fs from 'node:fs';
import { z } from 'zod';
import { parseInput } from '../../validate.js';
import type { DataPackage, PackageColumn } from './package.js';
import { installed } from '../../../shared/install-root.js';

export const COUNTRIES_FILE = installed('src', 'engine', 'data', 'packages', 'countries.csv');

const COLUMNS: PackageColumn[] = [
  {
    id: 'country_code',
    title: 'Country Code',
    dataType: 'string',
    objectType: 'A',
    description: 'ISO 3166-1 alpha-2 code, e.g. DE (primary key)',
  },
  {
    id: 'alpha3',
    title: 'Country Alpha-3 Code',
    dataType: 'string',
    objectType: 'A',
    description: 'ISO 3166-1 alpha-3 code, e.g. DEU',
  },
  {
    id: 'name',
    title: 'Country',
    dataType: 'string',
    objectType: 'L',
    labelOf: 'country_code',
    description: 'short English name, a label of country_code',
  },
  {
    id: 'region',
    title: 'Country Region',
    dataType: 'string',
    objectType: 'A',
    description: 'UN M49 region: Africa, Americas, Antarctica, Asia, Europe, Oceania',
  },
  {
    id: 'subregion',
    title: 'Country Subregion',
    dataType: 'string',
    objectType: 'A',
    description: 'UN M49 subregion, e.g. Western Europe, South America',
  },
];

let text: string | undefined;

export const countriesPackage: DataPackage = {
  id: 'countries',
  name: 'Countries',
  description:
    'The 249 countries and territories of ISO 3166-1 with alpha-2 and alpha-3 codes, English name, region and subregion. Join it to columns holding alpha-2 country codes.',
  dataset: 'countries',
  primaryKey: 'country_code',
  columns: COLUMNS,
  parameters: () => ({}),
  resolve(input) {
    parseInput(z.object({}).strict(), input ?? {}, 'countries parameters');
    return {};
  },
  csv() {
    return (text ??= fs.readFileSync(COUNTRIES_FILE, 'utf8'));
  },
  joinable: {
    dataType: 'string',
    what: 'ISO 3166-1 alpha-2 country codes (two capital letters, e.g. DE)',
    badValue: (column) => `NOT regexp_full_match(${column}, '[A-Z]{2}')`,
  },
};
