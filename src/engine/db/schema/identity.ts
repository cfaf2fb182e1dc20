// Metadata tables, declared once with the column kit (./kit.ts).
// Accounts and sign-in: organizations and their admins, users, browser sessions, password
// links, the OAuth server's state, attempt and rate limits, revoked tokens, MCP sessions.
import { table, text, time, int, json, primaryKey, index } from './kit.js';

export const organizations = table('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  created: time('created').notNull(),
});

export const orgAdmins = table(
  'org_admins',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.email] })],
);

export const users = table('users', {
  email: text('email').primaryKey(),
  name: text('name'),
  passwordHash: text('password_hash'),
  created: time('created').notNull(),
});

export const sessions = table('sessions', {
  /** sha256 of the cookie value: a leaked database does not leak live sessions. */
  idHash: text('id_hash').primaryKey(),
  email: text('email').notNull(),
  created: time('created').notNull(),
  expires: time('expires').notNull(),
});

/**
 * One-time links to set a password (invitations and "forgot password"), stored as the sha256
 * of the token: a leaked database does not hand out live links. Rows stay after they end so a
 * second click can be told "already used" rather than "unknown".
 */
export const passwordLinks = table(
  'password_links',
  {
    idHash: text('id_hash').primaryKey(),
    email: text('email')
      .notNull()
      .references(() => users.email, { onDelete: 'cascade' }),
    /** 'invite' | 'reset': only changes the wording of the page. */
    purpose: text('purpose').notNull(),
    created: time('created').notNull(),
    expires: time('expires').notNull(),
    /** null while usable; then 'used', 'replaced' (a newer link was sent) or 'password_set'. */
    ended: text('ended'),
    endedAt: time('ended_at'),
  },
  (t) => [index('password_links_email').on(t.email)],
);

/**
 * The built-in OAuth server's state (oidc-provider models): clients, grants, codes, refresh
 * tokens, sessions, interactions. One row per model instance, looked up by kind and id, by
 * grant (revocation), by session uid and by user code.
 */
export const oidcModels = table(
  'oidc_models',
  {
    /** The oidc-provider model name: Client, Grant, AuthorizationCode, RefreshToken… */
    kind: text('kind').notNull(),
    id: text('id').notNull(),
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    /** ISO time after which the row is dead; null: kept until destroyed (registered clients). */
    expiresAt: time('expires_at'),
    /** ISO time a one-time artifact (code, rotated refresh token) was used. */
    consumed: time('consumed'),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('oidc_models_grant').on(t.grantId),
    index('oidc_models_uid').on(t.uid),
    index('oidc_models_user_code').on(t.userCode),
    index('oidc_models_expires').on(t.expiresAt),
  ],
);

/**
 * Counters of the limits (src/engine/limits/counters.ts): quotas ("at most N per window":
 * client registrations, password-reset mails) and the back-off on guessing secrets (failed
 * sign-ins, WebDAV token checks). Kept here, not in memory, so every server process sees the
 * same counts and a restart forgets nothing.
 */
export const limitCounters = table(
  'limit_counters',
  {
    /** What is counted for whom: `<rule>:<sha256 of the subject>`. */
    bucket: text('bucket').primaryKey(),
    count: int('count').notNull(),
    /** ISO time the current window started (quota rules). */
    since: time('since').notNull(),
    /** ISO time of the last counted attempt (back-off rules). */
    last: time('last').notNull(),
    /** ISO time until which attempts are refused; null: not blocked. */
    blockedUntil: time('blocked_until'),
    /** ISO time after which the row no longer changes any decision (then deleted). */
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [index('limit_counters_expires').on(t.expiresAt)],
);

/**
 * Revoked access tokens: one token (`jti`) or every access token of an OAuth grant (`grant`).
 * Our access tokens are self-contained JWTs, so the verifier looks here on every request.
 */
export const tokenRevocations = table(
  'token_revocations',
  {
    kind: text('kind', { enum: ['jti', 'grant'] }).notNull(),
    id: text('id').notNull(),
    revoked: time('revoked').notNull(),
    /** ISO time after which no token it covers can still be valid (then deleted). */
    expiresAt: time('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('token_revocations_expires').on(t.expiresAt),
  ],
);

/**
 * MCP sessions over Streamable HTTP (src/mcp/http.ts): which user opened each, so any process of
 * a cluster can serve a request of the session (statelessly) or end it.
 */
export const mcpSessions = table(
  'mcp_sessions',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    /** ISO time of the last request (written at most once a minute); idle ones expire. */
    lastSeen: time('last_seen').notNull(),
  },
  (t) => [index('mcp_sessions_last_seen').on(t.lastSeen)],
);
