// The demo's fact data: 60,000 US domestic flights over 2024–2025, generated from a fixed
// seed so every first start produces exactly the same rows. Hubs get more traffic, summer and
// the holidays more flights, delays are right-skewed, and about 2% of flights are cancelled.
import { calendarDays, parseIsoDate } from '../packages/calendar-days.js';
import { AIRPORTS, airportByCode, distanceMiles, type Airport } from './airports.js';
import { CARRIERS, type Carrier } from './carriers.js';
import { Rng, WeightedTable } from './prng.js';

export const DEMO_FROM = '2024-01-01';
export const DEMO_TO = '2025-12-31';
export const DEMO_FLIGHTS = 60_000;
const SEED = 20240101;

export interface FlightRow {
  flight_id: number;
  flight_date: string;
  carrier: string;
  origin: string;
  dest: string;
  distance: number;
  dep_delay: number | null;
  arr_delay: number | null;
  cancelled: boolean;
  passengers: number;
}

// Index 0 = January. Traffic, delay and cancellation seasonality.
const MONTH_TRAFFIC = [0.86, 0.84, 0.99, 0.98, 1.01, 1.08, 1.1, 1.06, 0.94, 0.98, 0.95, 1.01];
const MONTH_DELAY = [1.15, 1.0, 0.95, 0.9, 1.0, 1.3, 1.35, 1.15, 0.8, 0.85, 0.9, 1.25];
const MONTH_CANCEL = [1.6, 1.4, 1.0, 0.7, 0.7, 1.1, 1.2, 1.0, 0.6, 0.6, 0.7, 1.4];
// Index 0 = Monday.
const WEEKDAY_TRAFFIC = [1.03, 0.92, 0.94, 1.06, 1.08, 0.86, 1.04];
/** Congested airports delay their departures more. */
const AIRPORT_DELAY: Record<string, number> = {
  EWR: 1.3,
  LGA: 1.25,
  ORD: 1.2,
  SFO: 1.2,
  JFK: 1.15,
  DEN: 1.1,
  ATL: 1.05,
  HNL: 0.8,
};
const CARRIER_TABLE = new WeightedTable(CARRIERS, (c) => c.share);
const WEST_TO_HAWAII = ['LAX', 'SFO', 'SEA', 'PDX', 'SAN', 'LAS', 'SJC', 'SMF', 'PHX'];

/** Flights per day: seasonal weights with noise, rounded so they add up to DEMO_FLIGHTS. */
function flightsPerDay(rng: Rng): { date: string; month: number; count: number }[] {
  const days = [...calendarDays(parseIsoDate(DEMO_FROM)!, parseIsoDate(DEMO_TO)!)].map((d) => {
    const holidays =
      (d.month === 12 && Number(d.date.slice(8)) >= 20) ||
      (d.month === 1 && Number(d.date.slice(8)) <= 3);
    const w =
      MONTH_TRAFFIC[d.month - 1]! *
      WEEKDAY_TRAFFIC[d.day_of_week - 1]! *
      (holidays ? 1.1 : 1) *
      rng.uniform(0.95, 1.05);
    return { date: d.date, month: d.month, w };
  });
  const total = days.reduce((s, d) => s + d.w, 0);
  const exact = days.map((d) => (DEMO_FLIGHTS * d.w) / total);
  const counts = exact.map(Math.floor);
  let left = DEMO_FLIGHTS - counts.reduce((s, n) => s + n, 0);
  const byRemainder = exact
    .map((x, i) => ({ i, r: x - Math.floor(x) }))
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    counts[i]! += 1;
  }
  return days.map((d, i) => ({ date: d.date, month: d.month, count: counts[i]! }));
}

/** Routes shorter than this are not flown (DAL–DFW, JFK–LGA…). */
const MIN_MILES = 150;

/** Only Hawaiian flies to and from Honolulu in the demo. */
const weightFor = (c: Carrier) => (a: Airport) =>
  a.code !== 'HNL' || c.code === 'HA' ? a.weight : 0;

// Weighted choices are the same for every flight of a carrier (and origin): built once.
const tables = new Map<string, WeightedTable<Airport>>();
function table(key: string, make: () => WeightedTable<Airport>): WeightedTable<Airport> {
  let t = tables.get(key);
  if (!t) tables.set(key, (t = make()));
  return t;
}

const HUBS = new Map(
  CARRIERS.map((c) => [c.code, AIRPORTS.filter((a) => c.hubs.includes(a.code))]),
);

function route(rng: Rng, c: Carrier): [Airport, Airport] {
  const w = weightFor(c);
  if (c.code === 'HA') {
    const hnl = airportByCode.get('HNL')!;
    const west = WEST_TO_HAWAII.map((code) => airportByCode.get(code)!);
    const other = rng.pick(table('HA', () => new WeightedTable(west, (a) => a.weight)));
    return rng.chance(0.5) ? [hnl, other] : [other, hnl];
  }
  const hubs = HUBS.get(c.code)!;
  const fromHub = rng.chance(c.code === 'WN' ? 0.35 : 0.5);
  const origin = fromHub
    ? rng.pick(table(`${c.code}:hubs`, () => new WeightedTable(hubs, (a) => a.weight)))
    : rng.pick(table(`${c.code}:all`, () => new WeightedTable(AIRPORTS, w)));
  const toHub = !fromHub && rng.chance(0.8);
  const dests = (pool: readonly Airport[]) =>
    new WeightedTable(
      pool.filter((a) => a !== origin && distanceMiles(origin, a) >= MIN_MILES),
      w,
    );
  let to = toHub ? table(`${c.code}:${origin.code}:hub`, () => dests(hubs)) : undefined;
  if (!to || to.empty) to = table(`${c.code}:${origin.code}:all`, () => dests(AIRPORTS));
  return [origin, rng.pick(to)];
}

/** Math.round without negative zero (a "-0" would print as "0" yet differ in tests). */
const round = (x: number) => Math.round(x) + 0;

function flight(rng: Rng, id: number, date: string, month: number): FlightRow {
  const c = rng.pick(CARRIER_TABLE);
  const [origin, dest] = route(rng, c);
  const distance = distanceMiles(origin, dest);
  const cancelled = rng.chance(0.02 * MONTH_CANCEL[month - 1]! * (0.5 + 0.5 * c.delayFactor));
  let depDelay: number | null = null;
  let arrDelay: number | null = null;
  let passengers = 0;
  if (!cancelled) {
    const f = MONTH_DELAY[month - 1]! * c.delayFactor * (AIRPORT_DELAY[origin.code] ?? 1);
    depDelay = rng.chance(Math.min(0.6, 0.25 * f))
      ? Math.min(1200, round(1 + rng.exponential(30 * Math.sqrt(f))))
      : Math.max(-20, Math.min(0, round(rng.normal(-4, 4))));
    const diverted = rng.chance(0.0025);
    arrDelay = diverted ? null : depDelay + round(rng.normal(-4, 9));
    let seats = rng.int(c.seats[0], c.seats[1]);
    if (distance < 400) seats = round(seats * 0.7);
    const summer = month >= 6 && month <= 8 ? 0.05 : 0;
    passengers = round(seats * Math.max(0.35, Math.min(1, rng.normal(0.83 + summer, 0.07))));
  }
  return {
    flight_id: id,
    flight_date: date,
    carrier: c.code,
    origin: origin.code,
    dest: dest.code,
    distance,
    dep_delay: depDelay,
    arr_delay: arrDelay,
    cancelled,
    passengers,
  };
}

/** The demo flights, in flight_id order (dates ascending). Always the same rows. */
export function generateFlights(): FlightRow[] {
  const rng = new Rng(SEED);
  const rows: FlightRow[] = [];
  for (const day of flightsPerDay(rng)) {
    for (let k = 0; k < day.count; k++)
      rows.push(flight(rng, rows.length + 1, day.date, day.month));
  }
  return rows;
}
