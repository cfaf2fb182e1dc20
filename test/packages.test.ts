// Data packages: the catalog (store/package), loading one (package/obj) as a normal load
// job, its exact rows and types, and joining it to existing data through references.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarPackage } from '../src/engine/data/packages/calendar.js';
import { calendarDays, parseIsoDate } from '../src/engine/data/packages/calendar-days.js';
import { COUNTRIES_FILE } from '../src/engine/data/packages/countries.js';
import { createProject } from './helpers/fixtures.js';
import { isFinal, pollJob, type JobJson } from './helpers/jobs.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MEMBER = 'pkg-member@example.com';
const MDADMIN = 'pkg-md@example.com';

/** The hand-written countries file, parsed (quoted cells may hold commas). */
function countryRows(): string[][] {
  const lines = fs.readFileSync(COUNTRIES_FILE, 'utf8').trimEnd().split('\n');
  return lines.map((l) => [...l.matchAll(/"([^"]*)"|([^,]+)/g)].map((m) => m[1] ?? m[2]!));
}

describe('countries.csv (shipped in the repository)', () => {
  const [header, ...rows] = countryRows();

  it('holds every ISO 3166-1 country once, with well-formed codes', () => {
    expect(header).toEqual(['country_code', 'alpha3', 'name', 'region', 'subregion']);
    expect(rows).toHaveLength(249);
    for (const r of rows) {
      expect(r, r.join(',')).toHaveLength(5);
      expect(r[0]).toMatch(/^[A-Z]{2}$/);
      expect(r[1]).toMatch(/^[A-Z]{3}$/);
      expect(r[2]!.trim()).toBe(r[2]);
    }
    expect(new Set(rows.map((r) => r[0])).size).toBe(249);
    expect(new Set(rows.map((r) => r[1])).size).toBe(249);
    expect(new Set(rows.map((r) => r[2])).size).toBe(249);
    expect(new Set(rows.map((r) => r[3]))).toEqual(
      new Set(['Africa', 'Americas', 'Antarctica', 'Asia', 'Europe', 'Oceania']),
    );
    expect(rows.map((r) => r[0])).toEqual(rows.map((r) => r[0]).sort());
  });

  it('has the known rows right', () => {
    const by = new Map(rows.map((r) => [r[0], r]));
    expect(by.get('DE')).toEqual(['DE', 'DEU', 'Germany', 'Europe', 'Western Europe']);
    expect(by.get('US')).toEqual(['US', 'USA', 'United States', 'Americas', 'Northern America']);
    expect(by.get('JP')).toEqual(['JP', 'JPN', 'Japan', 'Asia', 'Eastern Asia']);
    expect(by.get('BR')).toEqual(['BR', 'BRA', 'Brazil', 'Americas', 'South America']);
    expect(by.get('ZA')).toEqual(['ZA', 'ZAF', 'South Africa', 'Africa', 'Southern Africa']);
    expect(by.get('GB')?.slice(0, 3)).toEqual(['GB', 'GBR', 'United Kingdom']);
    expect(by.get('BQ')?.[2]).toBe('Bonaire, Sint Eustatius and Saba');
    expect(by.get('AQ')?.[3]).toBe('Antarctica');
  });
});

describe('calendar rows (computed)', () => {
  const days = (from: string, to: string) => [
    ...calendarDays(parseIsoDate(from)!, parseIsoDate(to)!),
  ];

  it('counts leap years and numbers ISO weeks across New Year', () => {
    expect(days('2024-01-01', '2024-12-31')).toHaveLength(366);
    expect(days('2023-01-01', '2023-12-31')).toHaveLength(365);
    const week = (d: string) => days(d, d)[0]!.week;
    expect(week('2024-12-30')).toBe(1); // Monday of the week holding 2 January 2025
    expect(week('2027-01-01')).toBe(53); // Friday: still 2026's week 53
    expect(week('2021-01-03')).toBe(53);
    expect(week('2021-01-04')).toBe(1);
    expect(week('2026-12-31')).toBe(53);
  });

  it('refuses impossible dates and ranges over 200 years', () => {
    expect(parseIsoDate('2023-02-29')).toBeNull();
    expect(parseIsoDate('2024-13-01')).toBeNull();
    expect(calendarPackage.resolve({ from: '1900-01-01', to: '2099-12-31' })).toEqual({
      from: '1900-01-01',
      to: '2099-12-31',
    });
    expect(() => calendarPackage.resolve({ from: '1900-01-01', to: '2100-01-01' })).toThrow(
      /over 200 years/,
    );
  });

  it('defaults to the last 10 full years through the end of next year', () => {
    const y = new Date().getUTCFullYear();
    expect(calendarPackage.resolve(undefined)).toEqual({
      from: `${y - 10}-01-01`,
      to: `${y + 1}-12-31`,
    });
  });
});

describe('data packages over HTTP', () => {
  let s: TestServer;
  let project: string;

  const query = (p: string, sql: string) =>
    s.engine.dbs.read(p, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJson());
  const def = async (p: string, ident: string) =>
    (await s.engine.model.get(p, ident))?.def as Record<string, unknown> | undefined;
  const finish = async (
    p: string,
    r: { status: number; text: string; json: { link?: { id: string }[] } },
  ) => {
    expect(r.status, r.text).toBe(202);
    const job: JobJson = await pollJob(s.api, p, r.json.link![0]!.id, isFinal, {
      timeoutMs: 30_000,
    });
    expect(job.status, job.message).toBe('OK');
    return job;
  };
  const loadPackage = async (p: string, body: unknown) =>
    finish(p, await s.api('POST', `/projects/${p}/package/obj`, { body }));
  /** Loads a CSV as a dataset with an explicit prescription (attributes unless named facts). */
  const loadCsv = async (
    p: string,
    name: string,
    csv: string,
    types: Record<string, string>,
    pk = '',
    facts: string[] = [],
  ) => {
    const source = `/in/${name}.csv`;
    await rawStorage(s.engine).writeFile(p, source, Buffer.from(csv), { createParents: true });
    const columns = Object.entries(types).map(([id, dataType]) => ({
      id,
      originalheader: id,
      label: id,
      dataType,
      objectType: facts.includes(id) ? 'F' : 'A',
    }));
    const prescription = { clustername: name, primarykey: pk, columns };
    const body = {
      type: 'cluster',
      clusters: { [name]: { source_type: 'webdav', source, prescription } },
    };
    return finish(p, await s.api('POST', `/projects/${p}/kodiak/transform/execute`, { body }));
  };

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
    project = await createProject(s, 'packages', 'Packages');
    await invite(s, project, MEMBER);
    await invite(s, project, MDADMIN, { mdadmin: true });
  });
  afterAll(() => s?.close());

  it('GET store/package lists the packages to any member', async () => {
    const r = await s.api('GET', `/projects/${project}/store/package`, { as: MEMBER });
    expect(r.status, r.text).toBe(200);
    const ids = r.json.packages.map((p: { id: string }) => p.id);
    expect(ids).toEqual(['calendar', 'countries']);
    const [calendar, countries] = r.json.packages;
    const y = new Date().getUTCFullYear();
    expect(calendar).toMatchObject({
      name: 'Calendar',
      parameters: {
        from: { type: 'date', default: `${y - 10}-01-01` },
        to: { type: 'date', default: `${y + 1}-12-31` },
      },
      datasets: [{ name: 'calendar', primaryKey: 'date' }],
    });
    expect(calendar.datasets[0].columns.map((c: { id: string }) => c.id)).toEqual([
      'date',
      'year',
      'quarter',
      'month',
      'month_name',
      'week',
      'day_of_week',
      'day_name',
      'is_weekend',
      'year_month',
    ]);
    expect(countries).toMatchObject({
      parameters: {},
      datasets: [{ name: 'countries', primaryKey: 'country_code' }],
    });
    expect(r.json.link).toContainEqual(
      expect.objectContaining({ rel: 'load', href: `/api/v1/projects/${project}/package/obj` }),
    );
  });

  it('loads calendar for a range: exact rows, types and model objects', async () => {
    const job = await loadPackage(project, {
      package: 'calendar',
      parameters: { from: '2020-12-30', to: '2021-01-04' },
    });
    expect(job.type).toBe('transform');
    const rows = await query(
      project,
      `SELECT date::VARCHAR AS date, year, quarter, month, month_name, week, day_of_week, day_name, is_weekend, year_month
       FROM ds_calendar ORDER BY date`,
    );
    const row = (date: string, ...rest: unknown[]) => {
      const [year, quarter, month, monthName, week, dow, dayName, weekend, ym] = rest;
      return {
        date,
        year: String(year),
        quarter: String(quarter),
        month: String(month),
        month_name: monthName,
        week: String(week),
        day_of_week: String(dow),
        day_name: dayName,
        is_weekend: weekend,
        year_month: ym,
      };
    };
    expect(rows).toEqual([
      row('2020-12-30', 2020, 4, 12, 'December', 53, 3, 'Wednesday', false, '2020-12'),
      row('2020-12-31', 2020, 4, 12, 'December', 53, 4, 'Thursday', false, '2020-12'),
      row('2021-01-01', 2021, 1, 1, 'January', 53, 5, 'Friday', false, '2021-01'),
      row('2021-01-02', 2021, 1, 1, 'January', 53, 6, 'Saturday', true, '2021-01'),
      row('2021-01-03', 2021, 1, 1, 'January', 53, 7, 'Sunday', true, '2021-01'),
      row('2021-01-04', 2021, 1, 1, 'January', 1, 1, 'Monday', false, '2021-01'),
    ]);
    const types = await query(project, 'DESCRIBE ds_calendar');
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toEqual({
      date: 'DATE',
      year: 'BIGINT',
      quarter: 'BIGINT',
      month: 'BIGINT',
      month_name: 'VARCHAR',
      week: 'BIGINT',
      day_of_week: 'BIGINT',
      day_name: 'VARCHAR',
      is_weekend: 'BOOLEAN',
      year_month: 'VARCHAR',
    });
    expect(await def(project, 'attr.calendar.date')).toMatchObject({
      primaryKey: true,
      dataType: 'date',
    });
    expect((await s.engine.model.get(project, 'attr.calendar.date'))?.name).toBe('Calendar Date');
    expect(await def(project, 'label.calendar.month_name')).toMatchObject({
      attribute: 'attr.calendar.month',
    });
    expect(await def(project, 'label.calendar.day_name')).toMatchObject({
      attribute: 'attr.calendar.day_of_week',
    });
    const file = await rawStorage(s.engine).stat(project, '/packages/calendar.csv');
    expect(file?.type).toBe('file');
    expect((await s.engine.datasets.get(project, 'calendar'))?.source).toBe(
      '/packages/calendar.csv',
    );
  });

  it('loads countries: 249 unique codes and the known rows', async () => {
    await loadPackage(project, { package: 'countries' });
    const [stats] = await query(
      project,
      'SELECT count(*) AS n, count(DISTINCT country_code) AS codes, count(DISTINCT alpha3) AS a3 FROM ds_countries',
    );
    expect(stats).toEqual({ n: '249', codes: '249', a3: '249' });
    const known = await query(
      project,
      `SELECT country_code, alpha3, name, region, subregion FROM ds_countries
       WHERE country_code IN ('DE', 'FR', 'CI') ORDER BY country_code`,
    );
    expect(known).toEqual([
      {
        country_code: 'CI',
        alpha3: 'CIV',
        name: "Côte d'Ivoire",
        region: 'Africa',
        subregion: 'Western Africa',
      },
      {
        country_code: 'DE',
        alpha3: 'DEU',
        name: 'Germany',
        region: 'Europe',
        subregion: 'Western Europe',
      },
      {
        country_code: 'FR',
        alpha3: 'FRA',
        name: 'France',
        region: 'Europe',
        subregion: 'Western Europe',
      },
    ]);
    expect(await def(project, 'attr.countries.country_code')).toMatchObject({ primaryKey: true });
    expect((await s.engine.model.get(project, 'label.countries.name'))?.name).toBe('Country');
  });

  describe('joinTo', () => {
    let p: string;
    const ORDERS = [
      'order_id,order_date,country,amount,status',
      '1,2024-01-05,DE,10.5,paid',
      '2,2024-02-29,FR,20,open',
      '3,2024-03-01,,5,paid',
      '4,,US,7.25,paid',
    ].join('\n');
    const post = (body: unknown, as?: string) =>
      s.api('POST', `/projects/${p}/package/obj`, { body, as });

    beforeAll(async () => {
      p = await createProject(s, 'joins', 'Joins');
      await loadCsv(
        p,
        'orders',
        `${ORDERS}\n`,
        {
          order_id: 'integer',
          order_date: 'date',
          country: 'string',
          amount: 'number',
          status: 'string',
        },
        'order_id',
        ['amount'],
      );
      // The countries package titles its name column "Country": titles are unique (any case),
      // so the orders' column titled "country" is renamed first.
      const path = `/projects/${p}/pmd/obj/attr.orders.country`;
      const cur = (await s.api('GET', path)).json.object;
      const r = await s.api('PUT', path, { body: { ...cur, name: 'Order Country' } });
      expect(r.status, r.text).toBe(200);
    });

    it.each([
      ['an unknown package', { package: 'weather' }, /no data package "weather"/],
      ['an unknown field', { package: 'countries', extra: 1 }, /invalid package request/],
      [
        'a parameter countries does not take',
        { package: 'countries', parameters: { from: '2020-01-01' } },
        /countries parameters/,
      ],
      [
        'an unknown calendar parameter',
        { package: 'calendar', parameters: { start: '2020-01-01' } },
        /calendar parameters/,
      ],
      [
        'a date that does not exist',
        { package: 'calendar', parameters: { from: '2023-02-29' } },
        /must be a date YYYY-MM-DD/,
      ],
      [
        'to before from',
        { package: 'calendar', parameters: { from: '2024-01-02', to: '2024-01-01' } },
        /is before "from"/,
      ],
      [
        'a range over 200 years',
        { package: 'calendar', parameters: { from: '1900-01-01', to: '2100-01-01' } },
        /over 200 years/,
      ],
      [
        'a dataset that is not loaded',
        { package: 'calendar', joinTo: [{ dataset: 'sales', column: 'day' }] },
        /dataset "sales", which is not loaded; loaded datasets: orders/,
      ],
      [
        'a missing column',
        { package: 'calendar', joinTo: [{ dataset: 'orders', column: 'day' }] },
        /no column "day"; its columns: order_id, order_date/,
      ],
      [
        'a fact',
        { package: 'calendar', joinTo: [{ dataset: 'orders', column: 'amount' }] },
        /is a fact; only an attribute/,
      ],
      [
        'a string column for calendar',
        { package: 'calendar', joinTo: [{ dataset: 'orders', column: 'status' }] },
        /dataType "string"; to join the calendar package it must be date/,
      ],
      [
        'a date column for countries',
        { package: 'countries', joinTo: [{ dataset: 'orders', column: 'order_date' }] },
        /must be string holding ISO 3166-1 alpha-2/,
      ],
      [
        'values that are no country codes',
        { package: 'countries', joinTo: [{ dataset: 'orders', column: 'status' }] },
        /values that are not ISO 3166-1 alpha-2 country codes .*: "open", "paid"/,
      ],
      [
        'the package dataset itself',
        { package: 'calendar', joinTo: [{ dataset: 'calendar', column: 'date' }] },
        /package's own dataset/,
      ],
    ])('refuses %s with 400 and changes nothing', async (_what, body, message) => {
      const r = await post(body);
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toMatch(message);
      expect((await s.engine.datasets.infos(p)).map((d) => d.name)).toEqual(['orders']);
      expect((await def(p, 'attr.orders.order_date'))?.reference).toBeUndefined();
      expect(await rawStorage(s.engine).stat(p, '/packages')).toBeNull();
    });

    it('refuses a plain member with 403; an MD Admin may load', async () => {
      const r = await post({ package: 'countries' }, MEMBER);
      expect(r.status, r.text).toBe(401); // not invited to this project
      await invite(s, p, MEMBER);
      const again = await post({ package: 'countries' }, MEMBER);
      expect(again.status, again.text).toBe(403);
      await invite(s, p, MDADMIN, { mdadmin: true });
      await finish(p, await post({ package: 'countries' }, MDADMIN));
    });

    it('links the named columns to the package through references', async () => {
      await loadPackage(p, {
        package: 'calendar',
        parameters: { from: '2024-01-01', to: '2024-12-31' },
        joinTo: [{ dataset: 'orders', column: 'order_date' }],
      });
      expect((await def(p, 'attr.orders.order_date'))?.reference).toEqual({
        dataset: 'calendar',
        attribute: 'attr.calendar.date',
      });
      expect((await def(p, 'attr.orders.country'))?.reference).toBeUndefined();
      await loadPackage(p, {
        package: 'countries',
        joinTo: [{ dataset: 'orders', column: 'country' }],
      });
      expect((await def(p, 'attr.orders.country'))?.reference).toEqual({
        dataset: 'countries',
        attribute: 'attr.countries.country_code',
      });
      // The rows did not change, and the join finds its partners.
      const joined = await query(
        p,
        `SELECT o.order_id, c.name, k.month_name FROM ds_orders o
         LEFT JOIN ds_countries c ON c.country_code = o.country
         LEFT JOIN ds_calendar k ON k.date = o.order_date ORDER BY o.order_id`,
      );
      expect(joined).toEqual([
        { order_id: '1', name: 'Germany', month_name: 'January' },
        { order_id: '2', name: 'France', month_name: 'February' },
        { order_id: '3', name: null, month_name: 'March' },
        { order_id: '4', name: 'United States', month_name: null },
      ]);
      expect((await s.engine.datasets.get(p, 'orders'))?.rows).toBe(4);
    });

    it('keeps the references when the dataset is reloaded from its file', async () => {
      const body = {
        type: 'cluster',
        clusters: { orders: { source_type: 'webdav', source: '/in/orders.csv' } },
      };
      await finish(p, await s.api('POST', `/projects/${p}/kodiak/transform/execute`, { body }));
      expect((await def(p, 'attr.orders.order_date'))?.reference).toMatchObject({
        dataset: 'calendar',
      });
      expect((await def(p, 'attr.orders.country'))?.reference).toMatchObject({
        dataset: 'countries',
      });
    });

    it('refuses (409) to replace a dataset of the same name loaded from another file', async () => {
      const q = await createProject(s, 'clash', 'Clash');
      await loadCsv(q, 'calendar', 'date\n2024-01-01\n', { date: 'date' }, 'date');
      const r = await s.api('POST', `/projects/${q}/package/obj`, {
        body: { package: 'calendar' },
      });
      expect(r.status, r.text).toBe(409);
      expect(r.json.message).toMatch(/not loaded from the calendar package/);
    });
  });

  it('links columns named like the package key without joinTo (implicit rule)', async () => {
    const p = await createProject(s, 'implicit', 'Implicit');
    await loadCsv(
      p,
      'visits',
      'visit_id,date,country_code,pages\n1,2024-05-01,DE,3\n2,2024-05-02,JP,8\n',
      { visit_id: 'integer', date: 'date', country_code: 'string', pages: 'integer' },
      'visit_id',
      ['pages'],
    );
    expect((await def(p, 'attr.visits.date'))?.reference).toBeUndefined();
    await loadPackage(p, {
      package: 'calendar',
      parameters: { from: '2024-05-01', to: '2024-05-31' },
    });
    await loadPackage(p, { package: 'countries' });
    expect((await def(p, 'attr.visits.date'))?.reference).toEqual({
      dataset: 'calendar',
      attribute: 'attr.calendar.date',
    });
    expect((await def(p, 'attr.visits.country_code'))?.reference).toEqual({
      dataset: 'countries',
      attribute: 'attr.countries.country_code',
    });
  });
});
