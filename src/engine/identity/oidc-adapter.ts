// Storage for the built-in OAuth authorization server: oidc-provider's adapter contract over
// the `oidc_models` table, so clients, grants and refresh tokens survive restarts. Storage
// only: what the payloads mean is oidc-provider's business.
import { and, eq, lt, sql } from 'drizzle-orm';
import { type Db, first, tablesOf } from '../db/index.js';

/** A model instance as oidc-provider hands it over (and expects it back). */
export interface OidcPayload {
  grantId?: string;
  userCode?: string;
  uid?: string;
  /** Set (epoch seconds) once a one-time artifact is used. */
  consumed?: number;
  [key: string]: unknown;
}

const SWEEP_EVERY_MS = 60_000;

export class OidcModels {
  private lastSweep = 0;

  /** `onGrantRevoked`: a grant ended (revoked or destroyed); its access tokens must stop. */
  constructor(
    private readonly db: Db,
    private readonly onGrantRevoked: (grantId: string) => void = () => {},
  ) {}

  /** The adapter oidc-provider instantiates once per model name. */
  adapter(kind: string): OidcAdapter {
    return new OidcAdapter(this, kind);
  }

  /** Removes rows that have expired; runs at most once a minute, from writes. */
  async sweep(force = false): Promise<number> {
    const { oidcModels } = tablesOf(this.db);
    const now = Date.now();
    if (!force && now - this.lastSweep < SWEEP_EVERY_MS) return 0;
    this.lastSweep = now;
    return (
      await this.db
        .delete(oidcModels)
        .where(lt(oidcModels.expiresAt, new Date(now).toISOString()))
        .returning({ id: oidcModels.id })
    ).length;
  }

  async upsert(kind: string, id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    const { oidcModels } = tablesOf(this.db);
    await this.sweep();
    const expiresAt =
      typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000).toISOString() : null;
    const row = {
      payload,
      grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
      userCode: typeof payload.userCode === 'string' ? payload.userCode : null,
      uid: typeof payload.uid === 'string' ? payload.uid : null,
      expiresAt,
      consumed:
        typeof payload.consumed === 'number'
          ? new Date(payload.consumed * 1000).toISOString()
          : null,
    };
    await this.db
      .insert(oidcModels)
      .values({ kind, id, ...row })
      .onConflictDoUpdate({ target: [oidcModels.kind, oidcModels.id], set: row });
  }

  async find(
    kind: string,
    by: 'id' | 'uid' | 'userCode',
    value: string,
  ): Promise<(OidcPayload & { consumed?: number }) | undefined> {
    const { oidcModels } = tablesOf(this.db);
    const column = { id: oidcModels.id, uid: oidcModels.uid, userCode: oidcModels.userCode }[by];
    const row = await this.db
      .select()
      .from(oidcModels)
      .where(
        and(
          eq(oidcModels.kind, kind),
          eq(column, value),
          sql`(${oidcModels.expiresAt} IS NULL OR ${oidcModels.expiresAt} > ${new Date().toISOString()})`,
        ),
      )
      .then(first);
    if (!row) return undefined;
    const payload = { ...row.payload } as OidcPayload;
    if (row.consumed) payload.consumed = Math.floor(Date.parse(row.consumed) / 1000);
    return payload;
  }

  async consume(kind: string, id: string): Promise<void> {
    const { oidcModels } = tablesOf(this.db);
    await this.db
      .update(oidcModels)
      .set({ consumed: new Date().toISOString() })
      .where(and(eq(oidcModels.kind, kind), eq(oidcModels.id, id)));
  }

  async destroy(kind: string, id: string): Promise<void> {
    const { oidcModels } = tablesOf(this.db);
    if (kind === 'Grant') this.onGrantRevoked(id);
    await this.db.delete(oidcModels).where(and(eq(oidcModels.kind, kind), eq(oidcModels.id, id)));
  }

  /** Everything issued under one grant (codes, access and refresh tokens), of any kind. */
  async revokeByGrantId(grantId: string): Promise<void> {
    const { oidcModels } = tablesOf(this.db);
    this.onGrantRevoked(grantId);
    await this.db.delete(oidcModels).where(eq(oidcModels.grantId, grantId));
  }
}

/** oidc-provider's adapter interface (asynchronous; better-sqlite3 itself is synchronous). */
export class OidcAdapter {
  constructor(
    private readonly store: OidcModels,
    private readonly kind: string,
  ) {}

  async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    await this.store.upsert(this.kind, id, payload, expiresIn);
  }

  async find(id: string): Promise<OidcPayload | undefined> {
    return this.store.find(this.kind, 'id', id);
  }

  async findByUid(uid: string): Promise<OidcPayload | undefined> {
    return this.store.find(this.kind, 'uid', uid);
  }

  async findByUserCode(userCode: string): Promise<OidcPayload | undefined> {
    return this.store.find(this.kind, 'userCode', userCode);
  }

  async consume(id: string): Promise<void> {
    await this.store.consume(this.kind, id);
  }

  async destroy(id: string): Promise<void> {
    await this.store.destroy(this.kind, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.store.revokeByGrantId(grantId);
  }
}
