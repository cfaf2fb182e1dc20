// The demo's airports: 40 real US airports with their Census region, position (for flight
// distances) and a traffic weight (how often they appear as an origin or destination).
export interface Airport {
  code: string;
  name: string;
  city: string;
  state: string;
  region: 'Northeast' | 'Midwest' | 'South' | 'West';
  lat: number;
  lon: number;
  weight: number;
}

type Row = [string, string, string, string, Airport['region'], number, number, number];

// prettier-ignore
const ROWS: Row[] = [
  ['ATL', 'Hartsfield-Jackson Atlanta International', 'Atlanta', 'GA', 'South', 33.6407, -84.4277, 14],
  ['DFW', 'Dallas/Fort Worth International', 'Dallas-Fort Worth', 'TX', 'South', 32.8998, -97.0403, 8],
  ['DEN', 'Denver International', 'Denver', 'CO', 'West', 39.8561, -104.6737, 8],
  ['ORD', "Chicago O'Hare International", 'Chicago', 'IL', 'Midwest', 41.9742, -87.9073, 9],
  ['LAX', 'Los Angeles International', 'Los Angeles', 'CA', 'West', 33.9416, -118.4085, 7],
  ['JFK', 'John F. Kennedy International', 'New York', 'NY', 'Northeast', 40.6413, -73.7781, 5],
  ['LAS', 'Harry Reid International', 'Las Vegas', 'NV', 'West', 36.084, -115.1537, 5],
  ['MCO', 'Orlando International', 'Orlando', 'FL', 'South', 28.4312, -81.3081, 5],
  ['MIA', 'Miami International', 'Miami', 'FL', 'South', 25.7959, -80.287, 4],
  ['CLT', 'Charlotte Douglas International', 'Charlotte', 'NC', 'South', 35.2144, -80.9473, 6],
  ['SEA', 'Seattle-Tacoma International', 'Seattle', 'WA', 'West', 47.4502, -122.3088, 5],
  ['PHX', 'Phoenix Sky Harbor International', 'Phoenix', 'AZ', 'West', 33.4342, -112.0116, 5],
  ['EWR', 'Newark Liberty International', 'Newark', 'NJ', 'Northeast', 40.6895, -74.1745, 4],
  ['SFO', 'San Francisco International', 'San Francisco', 'CA', 'West', 37.6213, -122.379, 5],
  ['IAH', 'George Bush Intercontinental', 'Houston', 'TX', 'South', 29.9902, -95.3368, 5],
  ['BOS', 'Boston Logan International', 'Boston', 'MA', 'Northeast', 42.3656, -71.0096, 4],
  ['FLL', 'Fort Lauderdale-Hollywood International', 'Fort Lauderdale', 'FL', 'South', 26.0742, -80.1506, 3],
  ['MSP', 'Minneapolis-Saint Paul International', 'Minneapolis', 'MN', 'Midwest', 44.8848, -93.2223, 4],
  ['LGA', 'LaGuardia', 'New York', 'NY', 'Northeast', 40.7769, -73.874, 4],
  ['DTW', 'Detroit Metropolitan Wayne County', 'Detroit', 'MI', 'Midwest', 42.2162, -83.3554, 4],
  ['PHL', 'Philadelphia International', 'Philadelphia', 'PA', 'Northeast', 39.8744, -75.2424, 3],
  ['SLC', 'Salt Lake City International', 'Salt Lake City', 'UT', 'West', 40.7899, -111.9791, 3],
  ['BWI', 'Baltimore/Washington International', 'Baltimore', 'MD', 'South', 39.1774, -76.6684, 3],
  ['DCA', 'Ronald Reagan Washington National', 'Arlington', 'VA', 'South', 38.8512, -77.0402, 3],
  ['IAD', 'Washington Dulles International', 'Dulles', 'VA', 'South', 38.9531, -77.4565, 2],
  ['SAN', 'San Diego International', 'San Diego', 'CA', 'West', 32.7338, -117.1933, 3],
  ['MDW', 'Chicago Midway International', 'Chicago', 'IL', 'Midwest', 41.7868, -87.7522, 2],
  ['TPA', 'Tampa International', 'Tampa', 'FL', 'South', 27.9755, -82.5332, 2],
  ['BNA', 'Nashville International', 'Nashville', 'TN', 'South', 36.1263, -86.6774, 3],
  ['AUS', 'Austin-Bergstrom International', 'Austin', 'TX', 'South', 30.1975, -97.6664, 2],
  ['HNL', 'Daniel K. Inouye International', 'Honolulu', 'HI', 'West', 21.3187, -157.9225, 2],
  ['DAL', 'Dallas Love Field', 'Dallas', 'TX', 'South', 32.8471, -96.8518, 2],
  ['PDX', 'Portland International', 'Portland', 'OR', 'West', 45.5898, -122.5951, 2],
  ['STL', 'St. Louis Lambert International', 'St. Louis', 'MO', 'Midwest', 38.7487, -90.37, 2],
  ['RDU', 'Raleigh-Durham International', 'Raleigh', 'NC', 'South', 35.8801, -78.788, 2],
  ['MSY', 'Louis Armstrong New Orleans International', 'New Orleans', 'LA', 'South', 29.9934, -90.258, 2],
  ['SJC', 'San Jose Mineta International', 'San Jose', 'CA', 'West', 37.3639, -121.9289, 1.5],
  ['MCI', 'Kansas City International', 'Kansas City', 'MO', 'Midwest', 39.2976, -94.7139, 1.5],
  ['SAT', 'San Antonio International', 'San Antonio', 'TX', 'South', 29.5337, -98.4698, 1.5],
  ['SMF', 'Sacramento International', 'Sacramento', 'CA', 'West', 38.6951, -121.5908, 1.5],
];

export const AIRPORTS: readonly Airport[] = ROWS.map(
  ([code, name, city, state, region, lat, lon, weight]) => ({
    code,
    name,
    city,
    state,
    region,
    lat,
    lon,
    weight,
  }),
);

export const airportByCode = new Map(AIRPORTS.map((a) => [a.code, a]));

/** Great-circle distance in statute miles, rounded (what airline schedules publish). */
export function distanceMiles(a: Airport, b: Airport): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * 3958.8 * Math.asin(Math.sqrt(h)));
}
