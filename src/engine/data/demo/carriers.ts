// The demo's carriers: 10 real US airlines with their share of flights, hubs (where their
// routes start or end), a punctuality factor (scales delays) and typical seats per flight.
export interface Carrier {
  code: string;
  name: string;
  share: number;
  hubs: readonly string[];
  /** 1 = average; above it more and longer delays. */
  delayFactor: number;
  seats: readonly [number, number];
}

export const CARRIERS: readonly Carrier[] = [
  {
    code: 'WN',
    name: 'Southwest Airlines',
    share: 19,
    hubs: ['LAS', 'DEN', 'MDW', 'BWI', 'PHX', 'DAL', 'AUS', 'BNA'],
    delayFactor: 1.05,
    seats: [143, 175],
  },
  {
    code: 'DL',
    name: 'Delta Air Lines',
    share: 18,
    hubs: ['ATL', 'MSP', 'DTW', 'SLC', 'SEA', 'JFK', 'LAX', 'BOS', 'LGA'],
    delayFactor: 0.8,
    seats: [110, 200],
  },
  {
    code: 'AA',
    name: 'American Airlines',
    share: 18,
    hubs: ['DFW', 'CLT', 'ORD', 'MIA', 'PHL', 'PHX', 'DCA', 'LAX', 'JFK'],
    delayFactor: 1.0,
    seats: [76, 190],
  },
  {
    code: 'UA',
    name: 'United Airlines',
    share: 15,
    hubs: ['ORD', 'DEN', 'IAH', 'EWR', 'SFO', 'IAD', 'LAX'],
    delayFactor: 1.0,
    seats: [76, 200],
  },
  {
    code: 'AS',
    name: 'Alaska Airlines',
    share: 7,
    hubs: ['SEA', 'PDX', 'SFO', 'LAX', 'SAN'],
    delayFactor: 0.85,
    seats: [76, 178],
  },
  {
    code: 'B6',
    name: 'JetBlue Airways',
    share: 6,
    hubs: ['JFK', 'BOS', 'FLL', 'MCO', 'EWR'],
    delayFactor: 1.3,
    seats: [100, 162],
  },
  {
    code: 'NK',
    name: 'Spirit Airlines',
    share: 6,
    hubs: ['FLL', 'LAS', 'MCO', 'DTW'],
    delayFactor: 1.25,
    seats: [145, 228],
  },
  {
    code: 'F9',
    name: 'Frontier Airlines',
    share: 5,
    hubs: ['DEN', 'LAS', 'MCO', 'PHL'],
    delayFactor: 1.3,
    seats: [180, 240],
  },
  {
    code: 'G4',
    name: 'Allegiant Air',
    share: 4,
    hubs: ['LAS', 'MCO', 'TPA'],
    delayFactor: 1.15,
    seats: [156, 186],
  },
  {
    code: 'HA',
    name: 'Hawaiian Airlines',
    share: 2,
    hubs: ['HNL'],
    delayFactor: 0.7,
    seats: [189, 278],
  },
];
