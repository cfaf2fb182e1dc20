// Fixture for the authorization matrix: a server on the enterprise plan (so plan limits never
// get in the way of throwaway projects and users), one user per permission level, and helpers
// that create throwaway projects, members and long-running jobs.
import { ADMIN, invite, startTestServer, type TestServer } from './server.js';

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

/** A job that runs for a minute unless cancelled. */
const SLOW_REPORT = {
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
    /** The shared project: every level user is invited, nothing destroys it. */
    readonly project: string,
  ) {}

  static async start(): Promise<AuthzFixture> {
    const s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
    s.engine.jobs.register('report', SLOW_REPORT);
    const f = new AuthzFixture(s, await createProject(s, 'Authz'));
    await f.inviteLevels(f.project);
    await invite(s, f.project, OTHER_MEMBER);
    return f;
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

  /** Submits a slow report job in `project` on behalf of `email` (who must be a member). */
  submitJob(email: string, project: string = this.project): string {
    const actor = this.s.engine.actor({ email }, project);
    return this.s.engine.jobs.submit(actor, 'report', {}).id;
  }

  /** Sends a request as `caller` (anonymous: no credentials). */
  call(caller: Caller | { email: string }, method: string, path: string, body?: unknown) {
    const as = typeof caller === 'string' ? emailOf(caller) : caller.email;
    return this.s.api(method, path, { as, body });
  }

  close(): Promise<void> {
    return this.s.close();
  }
}

export { ADMIN };

async function createProject(s: TestServer, label: string): Promise<string> {
  const id = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const r = await s.api('POST', '/projects', { body: { id, label, entity: 'default' } });
  if (r.status !== 201) throw new Error(`create project ${label} failed: ${r.status} ${r.text}`);
  return r.json.project.id as string;
}
