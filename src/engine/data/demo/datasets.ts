// The demo datasets' files and prescriptions: carriers and airports (dimensions) and flights
// (facts). Titles are what AQL and AI assistants use, so every one is unique in the model.
import { toCsv } from '../csv-write.js';
import type { Prescription } from '../prescription.js';
import { csvPrescription, type ColumnSpec } from '../prescription-builder.js';
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

const CARRIER_COLS: ColumnSpec[] = [
  ['code', 'Carrier Code', 'A', 'string'],
  ['name', 'Carrier Name', 'L', 'string', { labelOf: 'code' }],
];

const AIRPORT_COLS: ColumnSpec[] = [
  ['code', 'Airport Code', 'A', 'string'],
  ['name', 'Airport Name', 'L', 'string', { labelOf: 'code' }],
  ['city', 'Origin City', 'A', 'string'],
  ['state', 'Origin State', 'A', 'string'],
  ['region', 'Origin Region', 'A', 'string'],
];

const FLIGHT_COLS: ColumnSpec[] = [
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

const ids = (cols: ColumnSpec[]) => cols.map((c) => c[0]);

export function demoDatasets(flights: readonly FlightRow[]): DemoDataset[] {
  return [
    {
      name: 'carriers',
      source: '/demo/carriers.csv',
      prescription: csvPrescription('carriers', 'code', CARRIER_COLS),
      csv: toCsv(
        ids(CARRIER_COLS),
        CARRIERS.map((c) => [c.code, c.name]),
      ),
    },
    {
      name: 'airports',
      source: '/demo/airports.csv',
      prescription: csvPrescription('airports', 'code', AIRPORT_COLS),
      csv: toCsv(
        ids(AIRPORT_COLS),
        AIRPORTS.map((a) => [a.code, a.name, a.city, a.state, a.region]),
      ),
    },
    {
      name: 'flights',
      source: '/demo/flights.csv',
      prescription: csvPrescription('flights', 'flight_id', FLIGHT_COLS),
      csv: toCsv(
        ids(FLIGHT_COLS),
        flights.map((f) => ids(FLIGHT_COLS).map((id) => f[id as keyof FlightRow])),
      ),
    },
  ];
}
