// The Data screen of the web application in Chromium against the real server, as an MD Admin:
// a CSV uploaded with resumable.js (progress to 100 %), its structure guess edited (a type, a
// label, the key), loaded, the job followed to OK, the dataset listed with its rows and
// queried over REST with the query the screen links to Explore; pause and resume of a 6 MiB
// upload in 1 MiB chunks (chunks held by the test so the pause lands mid-upload); a flow run
// from its card; a load by an MD Admin under a row-level filter, whose counts are withheld;
// and a plain member, who does not see the section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { launch, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { loadDataset } from './helpers/fixtures.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';
import { breakdownCandidates, datasetQuery } from '../src/app/screens/data/first-question.js';
import type { PrescriptionColumn } from '../src/contract/guess.js';

const MD = 'data-md@example.com';
const MEMBER = 'data-member@example.com';
/** An MD Admin under a row-level filter: a load's counts are over every row, not theirs. */
const FILTERED_MD = 'data-filtered-md@example.com';
const PASSWORD = 'member-password-1';
const CSV = 'person_id,name,city,score\n1,Ann,Oslo,7\n2,Bob,Bergen,5\n3,Cid,Oslo,9\n';

/** Console lines other than the browser's notes of refused or aborted requests. */
const unexpected = (problems: string[], allow: RegExp[] = []) =>
  problems.filter((p) => !allow.some((a) => a.test(p)));

describe('the first question on a loaded dataset', () => {
  const col = (id: string, objectType: 'A' | 'F', dataType: string, label = id) =>
    ({ id, originalheader: id, objectType, dataType, label }) as PrescriptionColumn;
  const p = {
    clustername: 'visits',
    primarykey: 'visit_id',
    columns: [
      col('visit_id', 'A', 'integer'),
      col('day', 'A', 'date', 'Day'),
      col('page', 'A', 'string', 'Page'),
      col('device', 'A', 'string', 'Device'),
      col('seconds', 'F', 'integer', 'Seconds'),
    ],
  };
  const counted =
    'COUNT([dataset.visits]) AS "Count of visits", SUM([fact.visits.seconds]) AS "Sum of Seconds"';

  it('breaks down by an attribute of few values, else by month of a date, never by the key', () => {
    const [page, device] = [p.columns[2]!, p.columns[3]!];
    expect(datasetQuery(p, { kind: 'few', column: device })).toBe(
      `SELECT [attr.visits.device], ${counted}\nORDER BY 2 DESC`,
    );
    // Not knowing the values yet: by month of the date, not a list of every day.
    expect(datasetQuery(p)).toBe(
      `SELECT DATE_TRUNC("month", [attr.visits.day]) AS "Day (month)", ${counted}\nORDER BY 1`,
    );
    expect(breakdownCandidates(p).plain.map((c) => c.id)).toEqual(['page', 'device']);
    // No date: the 10 values with most rows.
    const undated = { ...p, columns: p.columns.filter((c) => c.id !== 'day') };
    expect(datasetQuery(undated)).toBe(
      `SELECT [attr.visits.page], ${counted}\nORDER BY 2 DESC\nLIMIT 10`,
    );
    expect(datasetQuery(undated, { kind: 'top', column: page })).toBe(datasetQuery(undated));
    // Nothing but the key: the rows counted.
    expect(datasetQuery({ ...p, columns: [p.columns[0]!] })).toBe(
      'SELECT COUNT([dataset.visits]) AS "Count of visits"',
    );
  });
});

describe.skipIf(skipBrowser)('the web application: data', () => {
  let s: TestServer;
  let browser: Browser;
  let data: string;

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer(), launch()]);
    await invite(s, s.demo, MD, { mdadmin: true });
    await invite(s, s.demo, MEMBER);
    // A row-level filter is a condition on the model: it needs a dataset to name.
    await loadDataset(s, s.demo, 'regions', 'region\nNorth\nSouth\n', '', [
      ['region', 'A', 'string', 'Region Name'],
    ]);
    await invite(s, s.demo, FILTERED_MD, { mdadmin: true, filter: '[Region Name] = "North"' });
    for (const who of [MD, MEMBER, FILTERED_MD]) await s.engine.accounts.setPassword(who, PASSWORD);
    data = `/app/p/${s.demo}/data`;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const upload = (page: Page, name: string, buffer: Buffer) =>
    page.getByLabel('Files to upload').setInputFiles({ name, mimeType: 'text/csv', buffer });
  const uploadItem = (page: Page, name: string) =>
    page.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name });

  it('uploads a CSV, edits its guess, loads it and lists the dataset with its rows', async () => {
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, data);
    page.setDefaultTimeout(10_000);
    try {
      await page.getByRole('heading', { name: 'Data', level: 1 }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Data' }).waitFor();
      await page.getByText('There is no folder /uploads yet').waitFor();

      await upload(page, 'people.csv', Buffer.from(CSV));
      const item = uploadItem(page, 'people.csv');
      await item.getByText('Uploaded · 100 %').waitFor();
      expect(await item.locator('progress').getAttribute('value')).toBe('100');
      // The folder was made and the file is listed in it.
      await page.getByRole('link', { name: 'Load people.csv' }).waitFor();
      await screenshots(page, 'data');

      await item.getByRole('link', { name: 'Load as dataset' }).click();
      await page.getByRole('heading', { name: 'Load a file', level: 1 }).waitFor();
      await page.getByText('/uploads/people.csv').waitFor();
      // The sample rows, as the file has them.
      const sample = page.locator('table.data-sample');
      await expect(sample.locator('tbody tr').count()).resolves.toBe(3);
      await expect(
        sample.locator('tbody tr').first().locator('td').allTextContents(),
      ).resolves.toEqual(['1', 'Ann', 'Oslo', '7']);
      await expect(page.getByLabel('Type of score').inputValue()).resolves.toBe('integer');
      await page.getByLabel('Type of score').selectOption('number');
      await page.getByLabel('Label of score').fill('Score Points');
      await page.getByLabel('No primary key').check();
      await page.getByLabel('person_id is the primary key').check();
      await page.getByLabel('Dataset', { exact: true }).fill('people');
      await screenshots(page, 'data-guess');

      await page.getByRole('button', { name: 'Load' }).click();
      const job = page.locator('.data-job');
      await job.getByText('OK', { exact: true }).waitFor();
      await job.getByText('Loaded 3 rows into dataset “people” (full); it holds 3 rows.').waitFor();
      expect(new URL(page.url()).searchParams.get('job')).toBeTruthy();

      // The edits reached the model: the key, the type, the title.
      const load = await s.api('GET', `/projects/${s.demo}/kodiak/dataload`, { as: MD });
      const people = (load.json.dataload.datasets as { name: string }[]).find(
        (d) => d.name === 'people',
      );
      expect(people).toMatchObject({ rows: 3, primaryKey: 'person_id' });
      const fact = await s.api('GET', `/projects/${s.demo}/pmd/obj/fact.people.score`, { as: MD });
      expect(fact.status, fact.text).toBe(200);
      expect(JSON.stringify(fact.json)).toContain('Score Points');

      // The Explore link opens a small query that runs at once: the rows counted by the first
      // attribute of few values (the API's value list says so), most first, the fact summed,
      // every column titled.
      const explore = job.getByRole('link', { name: 'Explore people' });
      await expect.poll(() => explore.getAttribute('href')).toContain('ORDER+BY');
      const url = new URL((await explore.getAttribute('href'))!, s.url);
      expect(url.pathname).toBe(`/app/p/${s.demo}/explore`);
      const aql = url.searchParams.get('aql')!;
      expect(aql).toBe(
        'SELECT [attr.people.name], COUNT([dataset.people]) AS "Count of people", SUM([fact.people.score]) AS "Sum of Score Points"\nORDER BY 2 DESC',
      );
      const q = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as: MD,
        body: { aql },
        headers: { prefer: 'wait=10' },
      });
      expect(q.status, q.text).toBe(200);
      const rows = (q.json.data.values as string).split('\n').map((r) => r.split('\t'));
      expect(rows.map((r) => [r[0], r[1], Number(r[2])])).toEqual([
        ['Ann', '1', 7],
        ['Bob', '1', 5],
        ['Cid', '1', 9],
      ]);
      await job.getByRole('link', { name: 'Explore people' }).click();
      await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}/explore`);
      await expect
        .poll(() => page.locator('.explore-result th').allTextContents())
        .toEqual(['name', 'Count of people', 'Sum of Score Points']);
      await expect.poll(() => page.locator('.explore-result tbody tr').count()).toBe(3);
      await page.goBack();

      await page.getByRole('link', { name: 'All datasets' }).click();
      const row = page.locator('tr[data-dataset=people]');
      await expect(row.locator('.data-rows').textContent()).resolves.toBe('3');
      await expect(row.textContent()).resolves.toMatch(/3 rows \(full\)/);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says a load ended without its row counts to an MD Admin under a row-level filter', async () => {
    const { page, problems, close } = await signedIn(browser, s, FILTERED_MD, PASSWORD, data);
    page.setDefaultTimeout(10_000);
    try {
      await upload(page, 'towns.csv', Buffer.from('town_id,town\n1,Oslo\n2,Bergen\n'));
      const item = uploadItem(page, 'towns.csv');
      await item.getByText('Uploaded · 100 %').waitFor();
      await item.getByRole('link', { name: 'Load as dataset' }).click();
      await page.getByRole('heading', { name: 'Load a file', level: 1 }).waitFor();
      await page.getByLabel('Dataset', { exact: true }).fill('towns');
      await page.getByRole('button', { name: 'Load' }).click();
      const job = page.locator('.data-job');
      await job.getByText('OK', { exact: true }).waitFor();
      // The job answers its counts as null to this reader (docs/api.md "Jobs").
      await job
        .getByText(
          'Dataset “towns” is loaded (full); its row counts are hidden under your row-level filter.',
        )
        .waitFor();
      expect(await job.textContent()).not.toMatch(/null/);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows every control of the load form at 390 and 1280 px, the key column too', async () => {
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, data);
    page.setDefaultTimeout(10_000);
    try {
      const wide =
        'order_id,customer_reference_code,shipping_destination_city,product_category_name,quantity_ordered,unit_price_in_euro\n' +
        '1,C-001,Trondheim,Garden furniture,2,19.5\n2,C-002,Stavanger,Kitchen appliances,1,240\n';
      await upload(page, 'wide-orders.csv', Buffer.from(wide));
      await uploadItem(page, 'wide-orders.csv')
        .getByRole('link', { name: 'Load as dataset' })
        .click();
      await page.getByRole('heading', { name: 'Load a file', level: 1 }).waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const controls = [
          page.getByLabel('order_id is the primary key'),
          page.getByLabel('unit_price_in_euro is the primary key'),
          page.getByLabel('Type of unit_price_in_euro'),
          page.getByLabel('Role of customer_reference_code'),
          page.getByLabel('Label of shipping_destination_city'),
          page.getByLabel('Dataset', { exact: true }),
          page.getByRole('button', { name: 'Load' }),
        ];
        for (const c of controls) {
          await c.scrollIntoViewIfNeeded();
          const b = (await c.boundingBox())!;
          // On the page's width, not behind an inner sideways scroll.
          expect(b.x, `${width}px`).toBeGreaterThanOrEqual(0);
          expect(b.x + b.width, `${width}px`).toBeLessThanOrEqual(width);
        }
        const inner = await page.evaluate(
          `(() => { const w = document.querySelector('.data-columns').parentElement; return w.scrollWidth - w.clientWidth; })()`,
        );
        expect(inner, `${width}px`).toBeLessThanOrEqual(1);
        const sideways = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(sideways, `${width}px`).toBe(0);
      }
      await screenshots(page, 'data-guess-wide');
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('links a dataset without a key to Explore, and writes its counts one way', async () => {
    const csv = `city,score\n${Array.from({ length: 10_000 }, (_, i) => `c${i % 7},${i}`).join('\n')}\n`;
    await loadDataset(s, s.demo, 'keyless', csv, '', [
      ['city', 'A', 'string', 'Keyless City'],
      ['score', 'F', 'integer', 'Keyless Score'],
    ]);
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, `${data}/datasets`);
    page.setDefaultTimeout(10_000);
    try {
      const row = page.locator('tr[data-dataset=keyless]');
      await row.waitFor();
      // The rows and the latest load's rows, in one number format.
      await expect(row.locator('.data-rows').textContent()).resolves.toBe('10,000');
      await expect(row.textContent()).resolves.toMatch(/10,000 rows \(full\)/);
      expect(await row.textContent()).not.toMatch(/10000/);
      // Beside its name, a link to Explore with a count of its rows, which runs.
      await row.getByRole('link', { name: 'Explore keyless' }).click();
      await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}/explore`);
      expect(new URL(page.url()).searchParams.get('aql')).toBe(
        'SELECT COUNT([dataset.keyless]) AS "Count of keyless"',
      );
      // It runs on opening, titled.
      await expect
        .poll(() => page.locator('.explore-result th').allTextContents())
        .toEqual(['Count of keyless']);
      await expect(page.locator('.explore-result tbody td').first().textContent()).resolves.toBe(
        '10,000',
      );
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await close();
    }
  });

  it("previews a dataset's first rows by key, and only the rows a row-level filter leaves", async () => {
    const csv = `score_id,player,points\n${Array.from({ length: 30 }, (_, i) => `${30 - i},p${30 - i},${(30 - i) * 1000}`).join('\n')}\n`;
    await loadDataset(s, s.demo, 'scores', csv, 'score_id', [
      ['score_id', 'A', 'integer', 'Score Id'],
      ['player', 'A', 'string', 'Player'],
      ['points', 'F', 'integer', 'Points'],
    ]);
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, `${data}/datasets`);
    page.setDefaultTimeout(10_000);
    try {
      await page
        .locator('tr[data-dataset=scores]')
        .getByRole('link', { name: 'scores', exact: true })
        .click();
      await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}/data/datasets/scores`);
      const columns = page.getByRole('table', { name: 'Columns' });
      await expect
        .poll(() => columns.locator('tbody tr').allInnerTexts())
        .toEqual([
          'Score Id\tAttribute (key)\tinteger\tattr.scores.score_id',
          'Player\tAttribute\tstring\tattr.scores.player',
          'Points\tFact\tinteger\tfact.scores.points',
        ]);
      // The first 20 rows by key (the file has them backwards), the fact as a number.
      const rows = page.getByRole('region', { name: 'First rows' });
      await rows.locator('tbody tr').first().waitFor();
      expect(await rows.locator('th').allTextContents()).toEqual(['Score Id', 'Player', 'Points']);
      const cells = await rows.locator('tbody tr').allInnerTexts();
      expect(cells.length).toBe(20);
      expect(cells[0]).toBe('1\tp1\t1,000');
      expect(cells[19]).toBe('20\tp20\t20,000');
      await screenshots(page, 'data-preview');
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await close();
    }
    // Under a row-level filter (Region Name = North), the preview holds only what it leaves.
    for (const [who, expected] of [
      [MD, ['North', 'South']],
      [FILTERED_MD, ['North']],
    ] as const) {
      const { page, close } = await signedIn(browser, s, who, PASSWORD, `${data}/datasets/regions`);
      try {
        const rows = page.getByRole('region', { name: 'First rows' });
        await rows.locator('tbody tr').first().waitFor();
        expect(await rows.locator('tbody tr').allInnerTexts()).toEqual(expected);
      } finally {
        await close();
      }
    }
  });

  it('pauses and resumes a 6 MiB upload sent in 1 MiB chunks', async () => {
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, data);
    try {
      // Chunks after the first wait here until the test lets them go, so the pause comes while
      // the upload is under way; every chunk POST is counted.
      const held: Route[] = [];
      let hold = true;
      let posts = 0;
      await page.route('**/storage/upload?*', async (route) => {
        const req = route.request();
        if (req.method() === 'POST') {
          posts++;
          const n = Number(new URL(req.url()).searchParams.get('resumableChunkNumber'));
          if (hold && n > 1) return void held.push(route);
        }
        await route.continue().catch(() => {});
      });
      const size = 6 * 1024 * 1024;
      const big = Buffer.alloc(size);
      for (let i = 0; i < size; i++) big[i] = 97 + (i % 26);
      await page.getByLabel('Into folder').fill('/big/files');
      const first = page.waitForResponse(
        (r) => r.request().method() === 'POST' && /resumableChunkNumber=1&/.test(r.url()),
      );
      await upload(page, 'big.csv', big);
      expect((await first).status()).toBe(200);
      const item = uploadItem(page, 'big.csv');
      await expect.poll(() => held.length).toBeGreaterThan(0);
      await item.getByRole('button', { name: 'Pause' }).click();
      await item.getByText(/^Paused · \d+ %$/).waitFor();
      // Let the held chunks go: the page has given them up, nothing more is sent.
      hold = false;
      for (const r of held.splice(0)) await r.abort().catch(() => {});
      const before = posts;
      await page.waitForTimeout(1000);
      expect(posts).toBe(before);
      const paused = Number(/(\d+) %/.exec((await item.getByRole('status').textContent())!)![1]);
      expect(paused).toBeGreaterThan(0);
      expect(paused).toBeLessThan(100);
      const missing = await s.api('GET', `/projects/${s.demo}/storage/list`, { as: MD });
      expect(JSON.stringify(missing.json)).not.toContain('big.csv');

      await item.getByRole('button', { name: 'Resume' }).click();
      await item.getByText('Uploaded · 100 %').waitFor({ timeout: 20_000 });
      const id = Buffer.from('files|/big').toString('base64url');
      const listing = await s.api('GET', `/projects/${s.demo}/storage/list/${id}`, { as: MD });
      expect(listing.status, listing.text).toBe(200);
      expect(listing.json.items).toEqual([
        expect.objectContaining({ name: 'big.csv', path: '/big/files/big.csv', size }),
      ]);
      await page.getByRole('heading', { name: 'Files in /big/files' }).waitFor();
      expect(new URL(page.url()).searchParams.get('folder')).toBe('/big/files');
      expect(unexpected(problems, [/net::ERR_(ABORTED|FAILED)/])).toEqual([]);
    } finally {
      await close();
    }
  });

  it('runs a flow from its card until OK, and shows a refusal', async () => {
    const put = await s.api('PUT', `/projects/${s.demo}/webdav/orders-src.csv`, {
      raw: { type: 'text/csv', data: 'order_id,amount\n1,5\n2,7\n3,11\n4,13\n' },
    });
    expect(put.status, put.text).toBe(201);
    const flow = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: {
        ident: 'flow.orders_copy',
        type: 'flow',
        name: 'Orders copy',
        def: {
          boxes: [
            { id: 'src', type: 'input.storage', path: '/orders-src.csv' },
            { id: 'out', type: 'output.dataset', dataset: 'orders_copy', mode: 'full' },
          ],
          edges: [{ from: 'src', to: 'out' }],
        },
      },
    });
    expect(flow.status, flow.text).toBe(201);

    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, `${data}/flows`);
    try {
      const card = page.getByRole('listitem', { name: 'Orders copy' });
      await card.getByText('never run').waitFor();
      await card.getByText('/orders-src.csv → orders_copy').waitFor();
      await card.getByRole('button', { name: 'Run' }).click();
      await card.getByRole('status').getByText('OK', { exact: true }).waitFor();
      await card.getByText(/^Last run /).waitFor();
      await screenshots(page, 'data-flows');

      // A flow another member started answers 403; the card shows the API's message.
      await page.route('**/kodiak/transform/execute', (route) =>
        route.fulfill({
          status: 403,
          contentType: 'application/json',
          body: JSON.stringify({
            statusCode: 403,
            message: 'flow flow.orders_copy is already running',
            context: { id: 'flow.orders_copy', running: true },
          }),
        }),
      );
      await card.getByRole('button', { name: 'Run' }).click();
      await card
        .getByRole('alert')
        .getByText(/already running/)
        .waitFor();
      await page.unroute('**/kodiak/transform/execute');

      await page.getByRole('link', { name: 'Datasets' }).click();
      const row = page.locator('tr[data-dataset=orders_copy]');
      await expect(row.locator('.data-rows').textContent()).resolves.toBe('4');
      expect(unexpected(problems, [/status of 403 /])).toHaveLength(0);
      expect(problems.filter((p) => /status of 403 /.test(p))).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('is not offered to a plain member', async () => {
    const { page, close } = await signedIn(browser, s, MEMBER, PASSWORD, `/app/p/${s.demo}`);
    try {
      const nav = page.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Dashboards' }).waitFor();
      expect(await nav.getByRole('link').allTextContents()).not.toContain('Data');
      await page.goto(`${s.url}${data}`);
      await page.getByRole('alert').getByText('There is no such screen in this project.').waitFor();
    } finally {
      await close();
    }
  });
});
