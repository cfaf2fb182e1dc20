// The AQL a dashboard chart's mark drills into Explore with (src/app/chart/drill.ts): "see the
// rows behind it" lists the report's fact dataset (key, the mark's columns, attributes, facts
// per key) and "break out by…" adds a breakdown; both keep the report's WHERE and add the
// mark's values and the dashboard's filters on the item (not those wired to other items).
import { describe, expect, it } from 'vitest';
import {
  breakOutAql,
  parseQuery,
  rowsAql,
  type DrillObject,
  type DrillSource,
} from '../src/app/chart/drill.js';

const objects: DrillObject[] = [
  {
    ident: 'attr.flights.flight_id',
    type: 'attribute',
    name: 'Flight',
    def: { dataset: 'flights', primaryKey: true },
  },
  {
    ident: 'attr.flights.date',
    type: 'attribute',
    name: 'Flight Date',
    def: { dataset: 'flights' },
  },
  { ident: 'attr.flights.origin', type: 'attribute', name: 'Origin', def: { dataset: 'flights' } },
  { ident: 'fact.flights.distance', type: 'fact', name: 'Distance', def: { dataset: 'flights' } },
  {
    ident: 'attr.airports.region',
    type: 'attribute',
    name: 'Origin Region',
    def: { dataset: 'airports' },
  },
  {
    ident: 'attr.carriers.name',
    type: 'attribute',
    name: 'Carrier Name',
    def: { dataset: 'carriers' },
  },
];

const oneBreakdown: DrillSource = {
  aql: 'SELECT [Origin Region], [Flights Flown]',
  columns: [
    { title: 'Origin Region', dataType: 'string' },
    { title: 'Flights Flown', dataType: 'number' },
  ],
  values: { 'Origin Region': 'West' },
  filters: [],
  item: 'by_region',
};

const twoBreakdowns: DrillSource = {
  aql: 'SELECT [Carrier Name], YEAR([Flight Date]) AS "Year", SUM([Distance]) AS "Miles, flown" WHERE [Cancelled] = FALSE OR [Origin] IN ("SFO", "LAX") ORDER BY 3 DESC LIMIT 10',
  columns: [
    { title: 'Carrier Name', dataType: 'string' },
    { title: 'Year', dataType: 'integer' },
    { title: 'Miles, flown', dataType: 'number' },
  ],
  values: { 'Carrier Name': 'Delta "Air" Lines', Year: '2024' },
  filters: [
    { attribute: 'attr.airports.region', values: ['West', 'South'], dataType: 'string' },
    { attribute: 'attr.flights.date', values: ['2024-01-01..2024-03-31'], dataType: 'date' },
    // Wired to another item: not this one's.
    {
      attribute: 'attr.flights.cancelled',
      values: ['true'],
      dataType: 'boolean',
      items: ['other'],
    },
    // No values picked: all.
    { attribute: 'attr.carriers.name', values: [], dataType: 'string' },
  ],
  item: 'miles',
};

describe("the AQL of a chart mark's drill into Explore", () => {
  it('reads the top-level clauses, not those inside brackets, strings or parentheses', () => {
    const q = parseQuery(twoBreakdowns.aql);
    expect(q.items.map((i) => i.expr)).toEqual([
      '[Carrier Name]',
      'YEAR([Flight Date])',
      'SUM([Distance])',
    ]);
    expect(q.where).toBe('[Cancelled] = FALSE OR [Origin] IN ("SFO", "LAX")');
    expect(q.tail).toBe('ORDER BY 3 DESC LIMIT 10');
    const nested = parseQuery('SELECT [a], SUM([x]) WHERE [b] = "x, WHERE y" ');
    expect(nested.items).toHaveLength(2);
    expect(nested.where).toBe('[b] = "x, WHERE y"');
  });

  it('see the rows, one breakdown: a listing of the fact dataset where the mark is', () => {
    expect(rowsAql(oneBreakdown, 'flights', objects)).toBe(
      'SELECT [attr.flights.flight_id] AS "Flight", [Origin Region], [attr.flights.date] AS "Flight Date", [attr.flights.origin] AS "Origin", SUM([fact.flights.distance]) AS "Distance"\n' +
        'WHERE [Origin Region] = "West"\n' +
        'LIMIT 1000',
    );
  });

  it('see the rows, two breakdowns and dashboard filters: the report WHERE kept, the item filters added', () => {
    expect(rowsAql(twoBreakdowns, 'flights', objects)).toBe(
      'SELECT [attr.flights.flight_id] AS "Flight", [Carrier Name], YEAR([Flight Date]), [attr.flights.date] AS "Flight Date", [attr.flights.origin] AS "Origin", SUM([fact.flights.distance]) AS "Distance"\n' +
        'WHERE ([Cancelled] = FALSE OR [Origin] IN ("SFO", "LAX"))\n' +
        '  AND [Carrier Name] = "Delta ""Air"" Lines"\n' +
        '  AND YEAR([Flight Date]) = 2024\n' +
        '  AND [attr.airports.region] IN ("West", "South")\n' +
        '  AND ([attr.flights.date] >= "2024-01-01" AND [attr.flights.date] < DATE_ADD("day", 1, "2024-03-31"))\n' +
        'LIMIT 1000',
    );
  });

  it('break out, one breakdown: the question plus the attribute, at the mark', () => {
    expect(breakOutAql(oneBreakdown, objects[5]!)).toBe(
      'SELECT [Origin Region], [Flights Flown], [attr.carriers.name]\nWHERE [Origin Region] = "West"',
    );
  });

  it('break out, two breakdowns: aliases, ORDER BY and LIMIT kept, positions unchanged', () => {
    expect(breakOutAql(twoBreakdowns, objects[2]!)).toBe(
      'SELECT [Carrier Name], YEAR([Flight Date]) AS "Year", SUM([Distance]) AS "Miles, flown", [attr.flights.origin]\n' +
        'WHERE ([Cancelled] = FALSE OR [Origin] IN ("SFO", "LAX"))\n' +
        '  AND [Carrier Name] = "Delta ""Air"" Lines"\n' +
        '  AND YEAR([Flight Date]) = 2024\n' +
        '  AND [attr.airports.region] IN ("West", "South")\n' +
        '  AND ([attr.flights.date] >= "2024-01-01" AND [attr.flights.date] < DATE_ADD("day", 1, "2024-03-31"))\n' +
        'ORDER BY 3 DESC LIMIT 10',
    );
  });

  it('an empty value is IS NULL; a dataset without a key lists its attributes, no facts', () => {
    const src = { ...oneBreakdown, values: { 'Origin Region': '' } };
    const keyless = objects.filter((o) => o.ident !== 'attr.flights.flight_id');
    expect(rowsAql(src, 'flights', keyless)).toBe(
      'SELECT [Origin Region], [attr.flights.date] AS "Flight Date", [attr.flights.origin] AS "Origin"\n' +
        'WHERE [Origin Region] IS NULL\n' +
        'LIMIT 1000',
    );
  });
});
