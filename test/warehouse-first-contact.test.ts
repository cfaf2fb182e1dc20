// Warehouse models good on first contact (issue 32): mapping a fresh PostgreSQL 15 schema
// (foreign keys, COMMENT ON) over MCP with the SDK's client and over REST gives titles in
// words unique in the project, name columns as labels of their table's key, the database's
// comments as descriptions, date columns linked to the calendar when asked, and suggested
// metrics that compile and answer what hand-written SQL answers.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { bindWarehouse, startWarehouse, type TestWarehouse } from './helpers/warehouse.js';

const SCHEMA = `
  CREATE SCHEMA first_contact;
  SET search_path = first_contact;
  CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text);
  CREATE TABLE products (id integer PRIMARY KEY, name text NOT NULL, sku text,
    unit_price numeric(10, 2));
  CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers,
    ordered_on date NOT NULL, total numeric(12, 2));
  CREATE TABLE order_items (id integer PRIMARY KEY, order_id integer NOT NULL REFERENCES orders,
    product_id integer NOT NULL REFERENCES products, quantity integer NOT NULL,
    unit_price numeric(10, 2) NOT NULL);
  COMMENT ON TABLE customers IS 'People who registered in the web shop';
  COMMENT ON COLUMN customers.name IS 'The name the customer registered with';
  COMMENT ON TABLE orders IS 'One row per order placed';
  COMMENT ON COLUMN orders.total IS 'What the customer paid, in EUR with taxes';
  INSERT INTO customers VALUES (1, 'Ann Lee', 'ann@example.com'), (2, 'Ann Lee', 'lee@example.com'),
    (3, 'Bo Chan', 'bo@example.com');
  INSERT INTO products VALUES (1, 'Mug', 'MUG-1', 8.50), (2, 'Pen', 'PEN-1', 2.25);
  INSERT INTO orders VALUES (10, 1, '2024-01-05', 19.25), (11, 2, '2024-02-10', 8.50),
    (12, 3, '2024-02-11', 4.50), (13, 1, '2024-03-01', 2.25);
  INSERT INTO order_items VALUES (100, 10, 1, 2, 8.50), (101, 10, 2, 1, 2.25),
    (102, 11, 1, 1, 8.50), (103, 12, 2, 2, 2.25), (104, 13, 2, 1, 2.25);
  RESET search_path;
`;

let s: TestServer;
let w: TestWarehouse;
let admin: Client;

interface Called {
  isError: boolean;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  data: any;
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Called> {
  const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
  return { isError: r.isError === true, text, data: r.structuredContent };
}

/** An AQL answer over MCP, each row's cells as numbers where they are numbers, sorted. */
async function rows(project: string, aql: string): Promise<unknown[][]> {
  const r = await call(admin, 'run_aql', { project, aql });
  expect(r.isError, r.text).toBe(false);
  return sorted((r.data.rows as unknown[][]).map((row) => row.map(num)));
}

/** The same rows from PostgreSQL itself. */
async function sql(query: string): Promise<unknown[][]> {
  const r = await w.exec({ text: query, rowMode: 'array' } as unknown as string);
  return sorted((r.rows as unknown[][]).map((row) => row.map(num)));
}

const num = (v: unknown) =>
  typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v === null ? null : v;
const sorted = (r: unknown[][]) =>
  r.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Title and description of each mapped object: `ident` → [title, description]. */
async function objects(project: string): Promise<Record<string, [string, string]>> {
  return Object.fromEntries(
    (await s.engine.model.all(project))
      .filter((o) => ['attribute', 'label', 'fact'].includes(o.type))
      .filter((o) => (o.def as { dataset: string }).dataset !== 'calendar')
      .map((o) => [o.ident, [o.name, o.description]]),
  );
}

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SCHEMA);
  const r = w.db.reader!.user;
  // CREATE: the calendar is loaded into the schema when asked for.
  await w.exec(`GRANT USAGE, CREATE ON SCHEMA first_contact TO ${r}`);
  await w.exec(`GRANT SELECT ON ALL TABLES IN SCHEMA first_contact TO ${r}`);
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  admin = await connectMcp(s, ADMIN);
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await s?.close();
  await w?.exec('DROP SCHEMA IF EXISTS first_contact CASCADE').catch(() => {});
  await w?.stop();
});

describe('mapping a fresh warehouse over MCP', () => {
  let p: string;

  it('list_warehouse_tables shows the tables’ comments', async () => {
    p = await createProject(s, 'fc', 'First contact');
    await bindWarehouse(s, p, w, 'first_contact');
    const list = await call(admin, 'list_warehouse_tables', { project: p });
    expect(list.isError, list.text).toBe(false);
    expect(
      list.data.tables.map((t: { table: string; description: string | null }) => [
        t.table,
        t.description,
      ]),
    ).toEqual([
      ['first_contact.customers', 'People who registered in the web shop'],
      ['first_contact.order_items', null],
      ['first_contact.orders', 'One row per order placed'],
      ['first_contact.products', null],
    ]);
  });

  it('map_tables gives titles in words, unique in the project, labels, descriptions and the calendar', async () => {
    const mapped = await call(admin, 'map_tables', {
      project: p,
      // Referencing tables first: the keys still keep their plain titles.
      tables: [
        { table: 'order_items' },
        { table: 'orders' },
        { table: 'customers' },
        {
          table: 'products',
          description: 'What the shop sells',
          columns: { sku: { title: 'Stock Keeping Unit', description: 'The warehouse code' } },
        },
      ],
      calendar: true,
    });
    expect(mapped.isError, mapped.text).toBe(false);
    expect(mapped.data.status).toBe('OK');
    expect(mapped.data.calendar).toMatchObject({ status: 'OK' });
    expect(await objects(p)).toEqual({
      'attr.customers.id': ['Customer ID', ''],
      'label.customers.name': ['Customer Name', 'The name the customer registered with'],
      'attr.customers.email': ['Email', ''],
      'attr.products.id': ['Product ID', ''],
      'label.products.name': ['Product Name', ''],
      'attr.products.sku': ['Stock Keeping Unit', 'The warehouse code'],
      'fact.products.unit_price': ['Unit Price', ''],
      'attr.orders.id': ['Order ID', ''],
      'attr.orders.customer_id': ['Order Customer ID', ''],
      'attr.orders.ordered_on': ['Ordered On', ''],
      'fact.orders.total': ['Total', 'What the customer paid, in EUR with taxes'],
      'attr.order_items.id': ['Order Item ID', ''],
      'attr.order_items.order_id': ['Order Item Order ID', ''],
      'attr.order_items.product_id': ['Order Item Product ID', ''],
      'fact.order_items.quantity': ['Quantity', ''],
      'fact.order_items.unit_price': ['Order Item Unit Price', ''],
    });
    expect(mapped.text).toContain('create_metric');
    expect((await s.engine.datasets.prescriptionOf(p, 'orders'))!.description).toBe(
      'One row per order placed',
    );
    expect((await s.engine.datasets.prescriptionOf(p, 'products'))!.description).toBe(
      'What the shop sells',
    );
    const model = await call(admin, 'get_model', { project: p });
    expect(model.text).toContain('What the customer paid, in EUR with taxes');
  });

  it('two customers of one name stay two rows when grouped by the name label', async () => {
    expect(await rows(p, 'SELECT [Customer Name], COUNT([Order ID])')).toEqual(
      await sql(`SELECT c.name, count(o.id)::int FROM first_contact.customers c
                   JOIN first_contact.orders o ON o.customer_id = c.id GROUP BY c.id, c.name`),
    );
    expect(await rows(p, 'SELECT [Customer Name], COUNT([Order ID])')).toHaveLength(3);
  });

  it('date columns are linked to the calendar', async () => {
    expect((await s.engine.model.get(p, 'attr.orders.ordered_on'))!.def).toMatchObject({
      reference: { dataset: 'calendar' },
    });
    expect(await rows(p, 'SELECT [Month Name], SUM([Total])')).toEqual(
      await sql(`SELECT trim(to_char(ordered_on, 'Month')), sum(total)::float8
                   FROM first_contact.orders GROUP BY 1`),
    );
  });

  it('the suggested metrics compile, are created with create_metric and answer as SQL does', async () => {
    const again = await call(admin, 'map_tables', {
      project: p,
      tables: [{ table: 'orders' }, { table: 'order_items' }, { table: 'customers' }],
    });
    expect(again.isError, again.text).toBe(false);
    const suggested = again.data.suggestedMetrics as {
      title: string;
      aql: string;
      description: string;
      format: string;
    }[];
    expect(suggested.map((m) => [m.title, m.aql])).toEqual([
      ['Number of Orders', 'SELECT COUNT([Order ID])'],
      ['Sum of Total', 'SELECT SUM([Total])'],
      ['Number of Order Items', 'SELECT COUNT([Order Item ID])'],
      ['Total Order Item Unit Price', 'SELECT SUM([Order Item Unit Price])'],
    ]);
    for (const m of suggested) {
      const created = await call(admin, 'create_metric', { project: p, ...m });
      expect(created.isError, created.text).toBe(false);
    }
    const got = await rows(
      p,
      'SELECT [Number of Orders], [Sum of Total], [Number of Order Items], [Total Order Item Unit Price]',
    );
    expect(got).toEqual(
      await sql(`SELECT (SELECT count(*)::int FROM first_contact.orders),
                        (SELECT sum(total)::float8 FROM first_contact.orders),
                        (SELECT count(*)::int FROM first_contact.order_items),
                        (SELECT sum(unit_price)::float8 FROM first_contact.order_items)`),
    );
    // Created ones are not suggested again.
    const third = await call(admin, 'map_tables', { project: p, tables: [{ table: 'orders' }] });
    expect(third.data.suggestedMetrics).toEqual([]);
  });
});

describe('mapping over REST (transform/execute)', () => {
  let p: string;

  async function map(body: Record<string, unknown>) {
    const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: { type: 'cluster', ...body },
    });
    if (r.status !== 202) return { status: r.status, json: r.json, text: r.text };
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    return { status: r.status, json: r.json, text: r.text, job };
  }

  it('titles avoid the project’s existing objects; caller words win; COMMENT ON texts are descriptions', async () => {
    p = await createProject(s, 'fcrest', 'First contact REST');
    await bindWarehouse(s, p, w, 'first_contact');
    const list = await s.api('GET', `/projects/${p}/data/guesstable`);
    expect(
      (list.json.tables as { name: string; description: string | null }[]).find(
        (t) => t.name === 'orders',
      )!.description,
    ).toBe('One row per order placed');
    const products = await map({
      clusters: { products: { source_type: 'table', source: 'products' } },
    });
    expect(products.status, products.text).toBe(202);
    const rest = await map({
      clusters: {
        orders: {
          source_type: 'table',
          source: 'orders',
          description: 'Orders, one a row',
          columns: { total: { title: 'Order Total' } },
        },
        order_items: { source_type: 'table', source: 'first_contact.order_items' },
        customers: { source_type: 'table', source: 'customers' },
      },
    });
    expect(rest.status, rest.text).toBe(202);
    // A second dataset of the same table: its titles are qualified again.
    const people = await map({
      clusters: { people: { source_type: 'table', source: 'customers' } },
    });
    expect(people.status, people.text).toBe(202);
    const o = await objects(p);
    expect(o['attr.order_items.product_id']).toEqual(['Order Item Product ID', '']);
    expect(o['fact.order_items.unit_price']).toEqual(['Order Item Unit Price', '']);
    expect(o['fact.orders.total']).toEqual([
      'Order Total',
      'What the customer paid, in EUR with taxes',
    ]);
    expect(o['label.customers.name']![0]).toBe('Customer Name');
    expect(o['label.people.name']![0]).toBe('Customer Name (people)');
    expect((await s.engine.datasets.prescriptionOf(p, 'orders'))!.description).toBe(
      'Orders, one a row',
    );
    expect((await s.engine.datasets.prescriptionOf(p, 'customers'))!.description).toBe(
      'People who registered in the web shop',
    );
    const result = rest.job!.result as { suggestedMetrics: { title: string }[] };
    expect(result.suggestedMetrics.map((m) => m.title)).toEqual([
      'Number of Orders',
      'Sum of Order Total',
      'Number of Order Items',
      'Total Order Item Unit Price',
    ]);
    const more = (people.job!.result as { suggestedMetrics: { title: string }[] }).suggestedMetrics;
    expect(more.map((m) => m.title)).toEqual(['Number of People']);
    // Every suggestion compiles (POST pmd/obj checks a metric's AQL).
    for (const m of [...result.suggestedMetrics, ...more]) {
      const created = await s.api('POST', `/projects/${p}/pmd/obj`, {
        body: { type: 'metric', ...toObject(m) },
      });
      expect(created.status, created.text).toBe(201);
    }
    const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      body: { aql: 'SELECT [Number of People], [Sum of Order Total]' },
      headers: { prefer: 'wait=20' },
    });
    expect(r.status, r.text).toBe(200);
    expect(
      await sql(`SELECT (SELECT count(*)::int FROM first_contact.customers),
                        (SELECT sum(total)::float8 FROM first_contact.orders)`),
    ).toEqual([(r.json.data.values as string).split('\t').map(num)]);
  });

  it('bad words are 400s before any job: an unknown column, mapping words on a file load', async () => {
    const unknown = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          orders: { source_type: 'table', source: 'orders', columns: { nope: { title: 'X' } } },
        },
      },
    });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.json.message).toContain('columns names "nope"');
    const file = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        calendar: true,
        clusters: { x: { source_type: 'webdav', source: '/in/x.csv' } },
      },
    });
    expect(file.status, file.text).toBe(400);
    expect(file.json.message).toContain('are for mapping tables');
  });
});

function toObject(m: object) {
  const { title, aql, description, format } = m as Record<string, string>;
  return { name: title, description, def: { aql, format } };
}
