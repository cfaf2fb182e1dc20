// The metadata schema of ./schema.ts (SQLite) for PostgreSQL: the same tables, columns,
// keys and indexes, checked by test/db-schema-parity.test.ts. Change both together, then
// `npm run db:generate` and `npm run db:generate:pg`. Types: booleans are `boolean`; JSON
// documents `json`, not `jsonb`: documents come back exactly as written, key order included
// (a flow's columns, a prescription's fields are ordered objects; jsonb sorts keys); byte
// sizes, row counts and row ids that grow without bound `bigint` (read as numbers); times stay
// ISO-8601 text, as on SQLite, so comparisons and ordering are the same.
import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { Announcement, WarehouseBinding } from './schema.js';

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  created: text('created').notNull(),
});

export const orgAdmins = pgTable(
  'org_admins',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.email] })],
);

export const users = pgTable('users', {
  email: text('email').primaryKey(),
  name: text('name'),
  passwordHash: text('password_hash'),
  created: text('created').notNull(),
});

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  label: text('label').notNull(),
  description: text('description').notNull().default(''),
  orgId: text('org_id')
    .notNull()
    .references(() => organizations.id),
  maintenance: boolean('maintenance').notNull().default(false),
  webdavTokenHash: text('webdav_token_hash'),
  announcement: json('announcement').$type<Announcement | null>(),
  createdBy: text('created_by').notNull(),
  created: text('created').notNull(),
  updated: text('updated').notNull(),
  /** Bumped by every data load: results cached under an older version are stale. */
  dataVersion: integer('data_version').notNull().default(0),
  /** Bumped by every model change. */
  modelVersion: integer('model_version').notNull().default(0),
  /** Public shares of dashboards are allowed (sharing/shares.ts). */
  dashboardEmbedding: boolean('dashboard_embedding').notNull().default(false),
  /** Origins that may frame public shares; null: any (`frame-ancestors *`). */
  embedOrigins: json('embed_origins').$type<string[] | null>(),
  /** A warehouse project's binding (SCALE.md): its data is read where it lives. */
  warehouse: json('warehouse').$type<WarehouseBinding | null>(),
});

export const projectUsers = pgTable(
  'project_users',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    active: boolean('active').notNull().default(true),
    admin: boolean('admin').notNull().default(false),
    mdadmin: boolean('mdadmin').notNull().default(false),
    useradmin: boolean('useradmin').notNull().default(false),
    roles: json('roles').$type<string[]>().notNull().default([]),
    filter: text('filter'),
    /** Positions of `filter`'s references written by title (aql/ref-rewrite.ts). */
    filterByTitle: json('filter_by_title').$type<number[]>(),
    invitedBy: text('invited_by'),
    created: text('created').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.email] }),
    index('project_users_email').on(t.email),
  ],
);

export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    status: text('status').notNull(),
    message: text('message'),
    params: json('params').$type<Record<string, unknown>>().notNull(),
    result: json('result').$type<unknown>(),
    progress: json('progress').$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    created: text('created').notNull(),
    started: text('started'),
    finished: text('finished'),
    /** The process running the job (null: queued, or never claimed). */
    owner: text('owner'),
    /** Until when (epoch ms) the owner's claim holds; its heartbeat renews it. */
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    /** Set by a cancel from any process; the owner aborts the job when it sees it. */
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    /** How many times a process claimed it (a query whose process died runs again, once). */
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [
    index('jobs_project_created').on(t.projectId, t.created),
    index('jobs_status').on(t.status),
  ],
);

export const activity = pgTable(
  'activity',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    time: text('time').notNull(),
    user: text('user'),
    object: text('object'),
    message: text('message').notNull(),
    detail: json('detail').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index('activity_project_type').on(t.projectId, t.type, t.id)],
);

export const sessions = pgTable('sessions', {
  /** sha256 of the cookie value: a leaked database does not leak live sessions. */
  idHash: text('id_hash').primaryKey(),
  email: text('email').notNull(),
  created: text('created').notNull(),
  expires: text('expires').notNull(),
});

// ---- Storage, uploads and data loading ----

/** WebDAV dead properties (PROPPATCH), keyed by storage path; moved and copied with files. */
export const davProps = pgTable(
  'dav_props',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    ns: text('ns').notNull(),
    name: text('name').notNull(),
    /** The property element's own XML, kept verbatim (namespaces declared, xml:lang kept). */
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.path, t.ns, t.name] })],
);

/** Chunked (resumable.js) uploads; chunks live on disk until the file is assembled. */
export const uploads = pgTable(
  'uploads',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** resumableIdentifier: the client's id of the file. */
    ident: text('ident').notNull(),
    filename: text('filename').notNull(),
    totalSize: bigint('total_size', { mode: 'number' }).notNull(),
    chunkSize: integer('chunk_size').notNull(),
    totalChunks: integer('total_chunks').notNull(),
    /** Storage path of the assembled file. */
    targetPath: text('target_path').notNull(),
    status: text('status').notNull(), // 'partial' | 'complete'
    createdBy: text('created_by').notNull(),
    created: text('created').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.ident] })],
);

/** The structure of a file to load (guessed, then possibly edited), by storage path. */
export const prescriptions = pgTable(
  'prescriptions',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    sourcePath: text('source_path').notNull(),
    prescription: json('prescription').$type<Record<string, unknown>>().notNull(),
    edited: boolean('edited').notNull().default(false),
    updated: text('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sourcePath] })],
);

/** Loaded datasets (the API's clusters): the structure they were loaded with and their size. */
export const datasets = pgTable(
  'datasets',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prescription: json('prescription').$type<Record<string, unknown>>().notNull(),
    rows: bigint('rows', { mode: 'number' }).notNull(),
    source: text('source'),
    loadedBy: text('loaded_by').notNull(),
    loaded: text('loaded').notNull(),
    dataVersion: integer('data_version').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

/** Semantic model objects (pmd/obj): attributes, labels, facts from loads; metrics, reports… */
export const objects = pgTable(
  'objects',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    ident: text('ident').notNull(),
    type: text('type').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    def: json('def').$type<Record<string, unknown>>().notNull(),
    acl: json('acl').$type<Array<{ userrole: string; acl: string }>>().notNull().default([]),
    tags: json('tags').$type<string[]>().notNull().default([]),
    revision: integer('revision').notNull().default(1),
    createdBy: text('created_by').notNull(),
    created: text('created').notNull(),
    updatedBy: text('updated_by').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.ident] }),
    index('objects_type').on(t.projectId, t.type),
  ],
);

/** Every revision of every model object, for history and history/{revision}. */
export const objectRevisions = pgTable(
  'object_revisions',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    ident: text('ident').notNull(),
    revision: integer('revision').notNull(),
    snapshot: json('snapshot').$type<Record<string, unknown>>().notNull(),
    user: text('user').notNull(),
    time: text('time').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.ident, t.revision] })],
);

// ---- OAuth authorization server ----

/**
 * The built-in OAuth server's state (oidc-provider models): clients, grants, codes, refresh
 * tokens, sessions, interactions. One row per model instance, looked up by kind and id, by
 * grant (revocation), by session uid and by user code.
 */
export const oidcModels = pgTable(
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
    expiresAt: text('expires_at'),
    /** ISO time a one-time artifact (code, rotated refresh token) was used. */
    consumed: text('consumed'),
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
 * Counters of the attempt limiter (src/engine/identity/throttle.ts): failed sign-ins and
 * WebDAV token checks per account and address, client registrations per address. Kept here,
 * not in memory, so every server process sees the same counts and a restart forgets nothing.
 */
export const authThrottle = pgTable(
  'auth_throttle',
  {
    /** What is counted for whom: `<rule>:<sha256 of the subject>`. */
    bucket: text('bucket').primaryKey(),
    count: integer('count').notNull(),
    /** ISO time the current window started (quota rules). */
    since: text('since').notNull(),
    /** ISO time of the last counted attempt (back-off rules). */
    last: text('last').notNull(),
    /** ISO time until which attempts are refused; null: not blocked. */
    blockedUntil: text('blocked_until'),
    /** ISO time after which the row no longer changes any decision (then deleted). */
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('auth_throttle_expires').on(t.expiresAt)],
);

/**
 * Revoked access tokens: one token (`jti`) or every access token of an OAuth grant (`grant`).
 * Our access tokens are self-contained JWTs, so the verifier looks here on every request.
 */
export const tokenRevocations = pgTable(
  'token_revocations',
  {
    kind: text('kind', { enum: ['jti', 'grant'] }).notNull(),
    id: text('id').notNull(),
    revoked: text('revoked').notNull(),
    /** ISO time after which no token it covers can still be valid (then deleted). */
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('token_revocations_expires').on(t.expiresAt),
  ],
);

/** AI chat conversations, private to the member who started them. */
export const aiConversations = pgTable(
  'ai_conversations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    owner: text('owner').notNull(),
    title: text('title').notNull(),
    created: text('created').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [index('ai_conversations_owner').on(t.projectId, t.owner, t.updated)],
);

/** One question of a conversation and, once its `ai` job ends, the answer (an AiAnswer). */
export const aiMessages = pgTable(
  'ai_messages',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => aiConversations.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    jobId: text('job_id').notNull(),
    question: text('question').notNull(),
    status: text('status').notNull(),
    answer: json('answer').$type<unknown>(),
    error: text('error'),
    created: text('created').notNull(),
    finished: text('finished'),
  },
  (t) => [index('ai_messages_conversation').on(t.conversationId, t.seq)],
);

// ---- Passwords ----

/**
 * One-time links to set a password (invitations and "forgot password"), stored as the sha256
 * of the token: a leaked database does not hand out live links. Rows stay after they end so a
 * second click can be told "already used" rather than "unknown".
 */
export const passwordLinks = pgTable(
  'password_links',
  {
    idHash: text('id_hash').primaryKey(),
    email: text('email')
      .notNull()
      .references(() => users.email, { onDelete: 'cascade' }),
    /** 'invite' | 'reset': only changes the wording of the page. */
    purpose: text('purpose').notNull(),
    created: text('created').notNull(),
    expires: text('expires').notNull(),
    /** null while usable; then 'used', 'replaced' (a newer link was sent) or 'password_set'. */
    ended: text('ended'),
    endedAt: text('ended_at'),
  },
  (t) => [index('password_links_email').on(t.email)],
);

/**
 * Requests counted against a rate limit (sliding window): kept here, not in memory, so every
 * server process and a restart see the same counts.
 */
export const rateEvents = pgTable(
  'rate_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    /** What is limited, e.g. 'password_reset_address'. */
    scope: text('scope').notNull(),
    /** Who is limited within the scope: an address, an e-mail. */
    key: text('key').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('rate_events_key').on(t.scope, t.key, t.at), index('rate_events_at').on(t.at)],
);

/**
 * One running flow per flow: the row is the lock, taken in the same statement that checks it,
 * so two processes cannot both start a run. Deleted when the run ends; a restart removes the
 * locks of jobs it ends as interrupted.
 */
export const flowLocks = pgTable(
  'flow_locks',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    flow: text('flow').notNull(),
    jobId: text('job_id').notNull(),
    since: text('since').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.flow] })],
);

/**
 * Trigger firings, claimed by (trigger, slot): a timer's slot is its scheduled minute, a file
 * trigger's the change it saw. INSERT OR IGNORE claims it, so a firing happens once per
 * deployment however many processes watch the same trigger.
 */
export const triggerFirings = pgTable(
  'trigger_firings',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    slot: text('slot').notNull(),
    time: text('time').notNull(),
    /** The run it started; null when skipped or failed to start. */
    jobId: text('job_id'),
    /** 'started' | 'skipped' | 'failed' */
    outcome: text('outcome').notNull(),
    message: text('message'),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.trigger, t.slot] }),
    index('trigger_firings_time').on(t.projectId, t.trigger, t.time),
  ],
);

/** What a trigger watches between checks (an SFTP listing), kept for every process. */
export const triggerState = pgTable(
  'trigger_state',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    state: json('state').$type<Record<string, unknown>>().notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.trigger] })],
);

/**
 * Triggers paused by the chain limits (flows/triggers/chains.ts): runs caused by other runs
 * went too deep or too fast. A paused trigger does not fire until enabled again by
 * trigger/toggle, which deletes the row; a row older than the trigger is left from one of the
 * same identifier that was deleted, and does not count.
 */
export const triggerPauses = pgTable(
  'trigger_pauses',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    time: text('time').notNull(),
    message: text('message').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.trigger] })],
);

/**
 * Dashboard shares (sharing/shares.ts): one per dashboard, gone with it (the foreign key on
 * the model object) and with the project. `users` are lowercase e-mails; `token` is the
 * public share's URL token (null for a private share); `pinned`, of a public share, the
 * revision of every object it computes when an unfiltered Admin last made or changed it
 * (sharing/public-pin.ts).
 */
export const shares = pgTable(
  'shares',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    dashboard: text('dashboard').notNull(),
    type: text('type').$type<'private' | 'public'>().notNull(),
    users: json('users').$type<string[]>().notNull().default([]),
    emailNotif: boolean('email_notif').notNull().default(false),
    token: text('token'),
    pinned: json('pinned').$type<Record<string, number> | null>(),
    createdBy: text('created_by').notNull(),
    created: text('created').notNull(),
    updatedBy: text('updated_by').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.dashboard] }),
    uniqueIndex('shares_token').on(t.token),
    foreignKey({
      columns: [t.projectId, t.dashboard],
      foreignColumns: [objects.projectId, objects.ident],
    }).onDelete('cascade'),
  ],
);

/** See schema.ts: immutable dataset versions. */
export const datasetVersions = pgTable(
  'dataset_versions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    cluster: text('cluster').notNull(),
    file: text('file').notNull(),
    rows: bigint('rows', { mode: 'number' }).notNull(),
    created: text('created').notNull(),
    state: text('state').$type<'pending' | 'current' | 'old'>().notNull(),
    published: text('published'),
    superseded: text('superseded'),
    lastRead: text('last_read'),
  },
  (t) => [index('dataset_versions_project').on(t.projectId, t.state, t.cluster)],
);

/** See schema.ts: a project's cross-process write lock. */
export const projectWriteLocks = pgTable('project_write_locks', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  holder: text('holder').notNull(),
  leaseUntil: text('lease_until').notNull(),
});

/**
 * MCP sessions over Streamable HTTP (src/mcp/http.ts): which user opened each, so any process of
 * a cluster can serve a request of the session (statelessly) or end it.
 */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    /** ISO time of the last request (written at most once a minute); idle ones expire. */
    lastSeen: text('last_seen').notNull(),
  },
  (t) => [index('mcp_sessions_last_seen').on(t.lastSeen)],
);

/**
 * WebDAV write locks (src/rest/webdav/locks.ts), in the metadata so every process of a cluster
 * honours a lock taken through another.
 */
export const davLocks = pgTable(
  'dav_locks',
  {
    token: text('token').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    root: text('root').notNull(),
    href: text('href').notNull(),
    depth: text('depth').notNull(),
    scope: text('scope').notNull(),
    /** The client's DAV:owner XML, echoed in lock discovery. */
    owner: text('owner').notNull(),
    principal: text('principal').notNull(),
    timeoutSeconds: integer('timeout_seconds').notNull(),
    /** Epoch ms after which the lock is over. */
    expires: bigint('expires', { mode: 'number' }).notNull(),
  },
  (t) => [index('dav_locks_project').on(t.projectId)],
);
