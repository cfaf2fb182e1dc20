// Fixture for the authorization matrix: a server on the enterprise plan (so plan limits never
// get in the way of throwaway projects and users), one user per permission level, a shared
// project holding a tiny dataset (so AQL queries have a model to run on), and helpers that
// create throwaway projects, members, long-running jobs and finished query jobs.
import { startFakeLlm, type FakeLlm } from './fake-llm.js';
import { ADMIN, invite, startTestServer, type TestServer } from './server.js';
import { rawStorage } from './storage.js';

/** The project permission levels, as the spec names them. */
export const LEVELS = ['member', 'useradmin', 'mdadmin', 'admin'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * Who calls: `none` is signed in but not invited to the project, `anonymous` sends no
 * credentials, the others are invited with exactly that level's flag.
 */
export const CALLERS = ['none', 'anonymous', ...LEVELS] as const;
export type Caller = (typeof CALLERS)[number];

export const RIGHTS: Record<Level, Record<string, boolean>> = {
  member: {},
  useradmin: { useradmin: true },
  mdadmin: { mdadmin: true },
  admin: { admin: true },
};

export const isLevel = (c: Caller): c is Level => (LEVELS as readonly string[]).includes(c);

/** The e-mail a caller signs in with (null: no credentials). */
export const emailOf = (c: Caller): string | null =>
  c === 'anonymous' ? null : `authz-${c}@example.com`;

/** The spec's rule: Admin implies every level; User Admin and MD Admin are independent. */
export function holds(level: Level, required: Level): boolean {
  if (level === 'admin' || required === 'member') return true;
  return level === required;
}

/** Another plain member, used as the owner of jobs nobody else created. */
export const OTHER_MEMBER = 'authz-other-member@example.com';

/** The tiny dataset of the shared project and a query on it (by identifiers: titles may repeat). */
const SALES_CSV = 'sale_id,region,amount\n1,EU,1\n2,EU,2\n3,US,4\n';
const SALES_PRESCRIPTION = {
  primarykey: 'sale_id',
  columns: [
    {
      id: 'sale_id',
      originalheader: 'sale_id',
      objectType: 'A',
      dataType: 'integer',
      label: 'Sale',
    },
    {
      id: 'region',
      originalheader: 'region',
      objectType: 'A',
      dataType: 'string',
      label: 'Sales Region',
    },
    {
      id: 'amount',
      originalheader: 'amount',
      objectType: 'F',
      dataType: 'integer',
      label: 'Sales Amount',
    },
  ],
};
export const AUTHZ_QUERY =
  'SELECT [attr.authz_sales.region], SUM([fact.authz_sales.amount]) AS "Amount"';
/** What AUTHZ_QUERY answers: `{ data }` of GET app/aql/data/{jobId}. */
export const AUTHZ_QUERY_DATA = {
  values: 'EU\t3\nUS\t4',
  visual: { column: [{ title: 'Sales Region' }, { title: 'Amount' }] },
};

/**
 * A job that runs for a minute unless cancelled. It is registered as the `flow` type (no
 * other handler runs flows here), so that `report` jobs are real AQL queries.
 */
const SLOW_JOB_TYPE = 'flow';
const SLOW_JOB = {
  run: async ({ signal }: { signal: AbortSignal }) =>
    new Promise((res, rej) => {
      const t = setTimeout(res, 60_000);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        rej(new Error('cancelled'));
      });
    }),
};

export class AuthzFixture {
  private n = 0;

  private constructor(
    readonly s: TestServer,
    /** AI chat's provider: unscripted, so answers end in ERROR; the routes are what is tested. */
    readonly llm: FakeLlm,
    /** The shared project: every level user is invited, nothing destroys it. */
    readonly project: string,
  ) {}

  static async start(): Promise<AuthzFixture> {
    const llm = await startFakeLlm();
    // Slow jobs hold their slot for a minute; enough slots remain for loads and queries.
    const s = await startTestServer({
      URSA_DEFAULT_PLAN: 'enterprise',
      URSA_JOB_CONCURRENCY: '64',
      URSA_AI_PROVIDER: 'openai',
      URSA_AI_BASE_URL: `${llm.url}/v1`,
      URSA_AI_MODEL: 'fake',
    });
    s.engine.jobs.register(SLOW_JOB_TYPE, SLOW_JOB);
    const f = new AuthzFixture(s, llm, await createProject(s, 'Authz'));
    await f.loadSales();
    await f.inviteLevels(f.project);
    await invite(s, f.project, OTHER_MEMBER);
    return f;
  }

  /** Loads the tiny `authz_sales` dataset into the shared project. */
  private async loadSales(): Promise<void> {
    await rawStorage(this.s.engine).writeFile(
      this.project,
      '/authz-sales.csv',
      Buffer.from(SALES_CSV),
    );
    const r = await this.s.api('POST', `/projects/${this.project}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          authz_sales: {
            source_type: 'webdav',
            source: '/authz-sales.csv',
            prescription: SALES_PRESCRIPTION,
          },
        },
      },
    });
    if (r.status !== 202) throw new Error(`loading authz_sales failed: ${r.status} ${r.text}`);
    const job = await this.s.engine.jobs.waitFor(r.json.link[0].id as string);
    if (job.status !== 'OK') throw new Error(`loading authz_sales failed: ${job.message}`);
  }

  /** A name no other case uses. */
  unique(tag: string): string {
    this.n += 1;
    return `${tag}-${this.n}`;
  }

  /** A new project whose Admin is the bootstrap administrator. */
  createProject(label: string): Promise<string> {
    return createProject(this.s, label);
  }

  /** Invites the users of `levels` into `project` with their flags. */
  async inviteLevels(project: string, levels: readonly Level[] = LEVELS): Promise<void> {
    for (const level of levels) await invite(this.s, project, emailOf(level)!, RIGHTS[level]);
  }

  /** Invites a throwaway plain member into `project` and returns the e-mail. */
  async throwawayMember(project: string, tag: string): Promise<string> {
    const email = `${this.unique(tag)}@example.com`;
    await invite(this.s, project, email);
    return email;
  }

  /** Submits a slow job in `project` on behalf of `email` (who must be a member). */
  async submitJob(email: string, project: string = this.project): Promise<string> {
    const actor = await this.s.engine.actor({ email }, project);
    return (await this.s.engine.jobs.submit(actor, SLOW_JOB_TYPE, {})).id;
  }

  /** Runs AUTHZ_QUERY in the shared project as `email` and answers its finished job's id. */
  async runQuery(email: string): Promise<string> {
    const r = await this.call({ email }, 'POST', `/projects/${this.project}/app/aql/execute`, {
      aql: AUTHZ_QUERY,
    });
    if (r.status !== 201) throw new Error(`query as ${email} failed: ${r.status} ${r.text}`);
    const id = (r.json.link as { rel: string; id: string }[]).find(
      (l) => l.rel === 'scache.created',
    )!.id;
    const job = await this.s.engine.jobs.waitFor(id);
    if (job.status !== 'OK')
      throw new Error(`query as ${email} ended ${job.status}: ${job.message}`);
    return id;
  }

  /** Sends a request as `caller` (anonymous: no credentials). */
  call(caller: Caller | { email: string }, method: string, path: string, body?: unknown) {
    const as = typeof caller === 'string' ? emailOf(caller) : caller.email;
    return this.s.api(method, path, { as, body });
  }

  /**
   * A conversation of `email` whose one answer has a chart, written straight to the store
   * (the routes under test only read it).
   */
  async chartConversation(email: string): Promise<{ conversation: string; message: string }> {
    const a = await this.s.engine.actor({ email }, this.project);
    const r = await this.s.engine.ai.conversations.add(a, 'chart please', undefined, (ids) =>
      this.s.engine.jobs.recordFinished(a, 'ai', ids, {
        ...ids,
        question: 'chart please',
        answer: 'A chart.',
        queries: [],
        chart: { queryId: 'q1', spec: {}, svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>' },
        usage: { inputTokens: 0, outputTokens: 0 },
        steps: 1,
        provider: 'openai',
        model: 'fake',
        complete: true,
        unverifiedNumbers: [],
      }),
    );
    await this.s.engine.ai.conversations.settle(await this.s.engine.jobs.get(a, r.job.id));
    return { conversation: r.conversation, message: r.message };
  }

  async close(): Promise<void> {
    await this.s.close();
    await this.llm.close();
  }
}

export { ADMIN };

async function createProject(s: TestServer, label: string): Promise<string> {
  const id = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const r = await s.api('POST', '/projects', { body: { id, label, entity: 'default' } });
  if (r.status !== 201) throw new Error(`create project ${label} failed: ${r.status} ${r.text}`);
  return r.json.project.id as string;
}
