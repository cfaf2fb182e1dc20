// Public shares served by token: the token itself, the share behind it (while the project
// allows embedding), and the rights its page is computed with (the sharing Admin's, while
// what it computes holds to its pin, public-pin.ts). Every reason not to show it is one 404.
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { first, tablesOf, type Db } from '../db/index.js';
import { EngineError, notFound } from '../errors.js';
import type { ModelObjects } from '../model/objects.js';
import type { ModelScope } from '../model/scope.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import type { DashboardRun, Reports } from '../reports/reports.js';
import { computedObjects, pinHolds, pinOf, publishes, type Pin } from './public-pin.js';

/** Where public shares are served on the site. */
export const SHARE_PATH = '/share';

export interface PublicDashboard {
  run: DashboardRun;
  /** CSP frame-ancestors: the project's `embedOrigins`, or `*` when none is set. */
  frameAncestors: string[];
}

/** What serving public shares needs from the engine. */
export interface PublicShareDeps {
  db: Db;
  objects: ModelObjects;
  /** Revisions of model objects: who changed what a public share computes. */
  model: ModelStore;
  reports: Reports;
  /** The site's address (known once the server listens). */
  siteUrl: () => string;
  /** A member's rights in a project (throws when they are not an active member). */
  actorOf: (email: string, projectId: string) => Promise<ProjectActor>;
}

/** The public token: 32 random bytes, base64url. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
export const newToken = (): string => randomBytes(32).toString('base64url');

/** The one answer for every public URL that does not show a dashboard now: no hints why. */
const noSuchShare = () => notFound('no shared dashboard at this address');

/** What a public share computes now, to pin when an unfiltered Admin makes or changes it. */
export const pinNow = (s: ModelScope, dash: ObjectRow): Pin =>
  pinOf(computedObjects(s.index, dash));

/** The public share behind a token, while the project allows embedding. */
function publicRow(db: Db, token: string) {
  const { shares, projects } = tablesOf(db);
  return db
    .select({
      projectId: shares.projectId,
      dashboard: shares.dashboard,
      sharedBy: shares.updatedBy,
      pinned: shares.pinned,
      embedOrigins: projects.embedOrigins,
    })
    .from(shares)
    .innerJoin(projects, eq(projects.id, shares.projectId))
    .where(
      and(
        eq(shares.token, token),
        eq(shares.type, 'public'),
        eq(projects.dashboardEmbedding, true),
      ),
    )
    .limit(1)
    .then(first);
}

export class PublicShares {
  constructor(private readonly deps: PublicShareDeps) {}

  /**
   * The dashboard of a public share, computed with the rights of the Admin who shared it, and
   * the origins that may frame it. One 404 for every reason it is not shown.
   */
  async dashboard(
    token: string,
    filter: unknown,
    opts: { signal?: AbortSignal; choices?: boolean } = {},
  ): Promise<PublicDashboard> {
    if (!TOKEN_RE.test(token)) throw noSuchShare();
    const hit = await publicRow(this.deps.db, token);
    if (!hit) throw noSuchShare();
    const actor = await this.servedAs(hit);
    let run: DashboardRun;
    try {
      run = await this.deps.reports.dashboard(actor, hit.dashboard, filter, opts);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'not_found') throw noSuchShare();
      throw err;
    }
    // Again once computed: a change made (or rights lost) while it ran is on record by now,
    // and nothing computed from it leaves.
    await this.servedAs(hit);
    const origins = hit.embedOrigins ?? [];
    return { run, frameAncestors: origins.length ? origins : ['*'] };
  }

  url(token: string): string {
    return `${this.deps.siteUrl()}${SHARE_PATH}/${token}`;
  }

  /**
   * The rights a public share is computed with: its sharing Admin's, while they are an Admin
   * without a row filter and what it computes holds to its pin; otherwise the one 404.
   */
  private async servedAs(hit: {
    projectId: string;
    dashboard: string;
    sharedBy: string;
    pinned: Pin | null;
  }): Promise<ProjectActor> {
    let actor: ProjectActor;
    try {
      actor = await this.deps.actorOf(hit.sharedBy, hit.projectId);
    } catch (err) {
      // No longer a member, revoked, or the project under maintenance.
      if (err instanceof EngineError) throw noSuchShare();
      throw err;
    }
    if (!publishes(actor) || !(await this.pinHolds(actor, hit.dashboard, hit.pinned)))
      throw noSuchShare();
    return actor;
  }

  /** Whether what the share computes now is what was pinned, or was changed only by publishers. */
  private async pinHolds(
    actor: ProjectActor,
    dashboard: string,
    pin: Pin | null,
  ): Promise<boolean> {
    if (!pin) return false; // public shares made before pins: an Admin changes them to serve again
    const index = (await this.deps.objects.scope(actor)).index;
    const dash = index.byIdent.get(dashboard);
    if (!dash) return false;
    const known = new Map<string, boolean>();
    const isPublisher = async (email: string) => {
      let ok = known.get(email);
      if (ok === undefined) {
        try {
          ok = publishes(await this.deps.actorOf(email, actor.projectId));
        } catch (err) {
          if (!(err instanceof EngineError)) throw err;
          ok = false;
        }
        known.set(email, ok);
      }
      return ok;
    };
    return pinHolds(
      this.deps.model,
      actor.projectId,
      pin,
      computedObjects(index, dash),
      isPublisher,
    );
  }
}
