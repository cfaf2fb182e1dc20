// The demo datasets' files and prescriptions: carriers and airports (dimensions) and flights
// (facts). Titles are what AQL and AI assistants use, so every one is unique in the model.
import { toCsv } from '../../../shared/delimited.js';
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

// Descriptions answer what assistants get wrong without them: what a cancelled flight holds,
// and that airports describe the origin only (test/demo.test.ts checks them against the data).
const CARRIER_COLS: ColumnSpec[] = [
  [
    'code',
    'Carrier Code',
    'A',
    'string',
    { description: 'two-letter airline code, e.g. "AA" (primary key); flights\' [Carrier]' },
  ],
  [
    'name',
    'Carrier Name',
    'L',
    'string',
    { labelOf: 'code', description: 'airline name, e.g. "American Airlines"' },
  ],
];

const AIRPORT_COLS: ColumnSpec[] = [
  [
    'code',
    'Airport Code',
    'A',
    'string',
    { description: 'three-letter airport code, e.g. "ATL" (primary key); flights\' [Origin]' },
  ],
  [
    'name',
    'Airport Name',
    'L',
    'string',
    { labelOf: 'code', description: "airport name; for flights, the origin airport's" },
  ],
  ['city', 'Origin City', 'A', 'string', { description: 'city of the airport (the origin)' }],
  [
    'state',
    'Origin State',
    'A',
    'string',
    { description: 'two-letter US state of the airport (the origin), e.g. "CA"' },
  ],
  [
    'region',
    'Origin Region',
    'A',
    'string',
    {
      description: 'US census region of the airport (the origin): Midwest, Northeast, South, West',
    },
  ],
];

const FLIGHT_COLS: ColumnSpec[] = [
  [
    'flight_id',
    'Flight',
    'A',
    'integer',
    { description: 'one flight (primary key); cancelled flights are rows too' },
  ],
  [
    'flight_date',
    'Flight Date',
    'A',
    'date',
    { reference: 'calendar', description: 'day of the flight, 2024-01-01 to 2025-12-31' },
  ],
  [
    'carrier',
    'Carrier',
    'A',
    'string',
    { reference: 'carriers', description: 'airline code, e.g. "AA"; [Carrier Name] is its name' },
  ],
  [
    'origin',
    'Origin',
    'A',
    'string',
    {
      reference: 'airports',
      description:
        'origin airport code, e.g. "ATL"; [Airport Name], [Origin City], [Origin State] and [Origin Region] describe it',
    },
  ],
  [
    'dest',
    'Destination',
    'A',
    'string',
    {
      description:
        'destination airport code, e.g. "LAX"; it has no airport lookup: the airport names, cities, states and regions are the origin\'s',
    },
  ],
  [
    'distance',
    'Distance',
    'F',
    'integer',
    {
      description:
        'miles from origin to destination; a cancelled flight keeps its distance (add WHERE NOT [Cancelled] for miles flown)',
    },
  ],
  [
    'dep_delay',
    'Departure Delay',
    'F',
    'number',
    { description: 'minutes late at departure (negative: early); empty for a cancelled flight' },
  ],
  [
    'arr_delay',
    'Arrival Delay',
    'F',
    'number',
    {
      description:
        'minutes late at arrival (negative: early); empty for a cancelled or diverted flight',
    },
  ],
  [
    'cancelled',
    'Cancelled',
    'A',
    'boolean',
    {
      description:
        'true for a cancelled flight (about 2%): it keeps its distance but has no delays and 0 passengers',
    },
  ],
  [
    'passengers',
    'Passengers',
    'F',
    'integer',
    { description: 'people on board; 0 for a cancelled flight' },
  ],
];

/** What one row of each dataset is. */
const DESCRIPTIONS = {
  carriers: 'airlines: one row per carrier, 10 US airlines',
  airports: 'airports: one row per airport, 40 US airports; flights reach them by [Origin] only',
  flights:
    'flights: one row per US domestic flight of 2024–2025, cancelled ones included ([Cancelled]); COUNT([flights]) counts them',
};

const ids = (cols: ColumnSpec[]) => cols.map((c) => c[0]);

export function demoDatasets(flights: readonly FlightRow[]): DemoDataset[] {
  return [
    {
      name: 'carriers',
      source: '/demo/carriers.csv',
      prescription: csvPrescription('carriers', 'code', CARRIER_COLS, DESCRIPTIONS.carriers),
      csv: toCsv(
        ids(CARRIER_COLS),
        CARRIERS.map((c) => [c.code, c.name]),
      ),
    },
    {
      name: 'airports',
      source: '/demo/airports.csv',
      prescription: csvPrescription('airports', 'code', AIRPORT_COLS, DESCRIPTIONS.airports),
      csv: toCsv(
        ids(AIRPORT_COLS),
        AIRPORTS.map((a) => [a.code, a.name, a.city, a.state, a.region]),
      ),
    },
    {
      name: 'flights',
      source: '/demo/flights.csv',
      prescription: csvPrescription('flights', 'flight_id', FLIGHT_COLS, DESCRIPTIONS.flights),
      csv: toCsv(
        ids(FLIGHT_COLS),
        flights.map((f) => ids(FLIGHT_COLS).map((id) => f[id as keyof FlightRow])),
      ),
    },
  ];
}
