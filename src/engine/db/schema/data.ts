// Metadata tables, declared once with the column kit (./kit.ts).
// Storage, uploads and data loading: WebDAV properties and locks, chunked uploads, load
// prescriptions, loaded datasets and their immutable versions, a project's write lock.
import { table, text, time, int, bigint, bool, json, primaryKey, index } from './kit.js';
import { projects } from './projects.js';

/** WebDAV dead properties (PROPPATCH), keyed by storage path; moved and copied with files. */
export const davProps = table(
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

/**
 * WebDAV write locks (src/rest/webdav/locks.ts), in the metadata so every process of a cluster
 * honours a lock taken through another.
 */
export const davLocks = table(
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
    timeoutSeconds: int('timeout_seconds').notNull(),
    /** Epoch ms after which the lock is over. */
    expires: bigint('expires').notNull(),
  },
  (t) => [index('dav_locks_project').on(t.projectId)],
);

/** Chunked (resumable.js) uploads; chunks live on disk until the file is assembled. */
export const uploads = table(
  'uploads',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** resumableIdentifier: the client's id of the file. */
    ident: text('ident').notNull(),
    filename: text('filename').notNull(),
    totalSize: bigint('total_size').notNull(),
    chunkSize: int('chunk_size').notNull(),
    totalChunks: int('total_chunks').notNull(),
    /** Storage path of the assembled file. */
    targetPath: text('target_path').notNull(),
    status: text('status').notNull(), // 'partial' | 'complete'
    createdBy: text('created_by').notNull(),
    created: time('created').notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.ident] })],
);

/** The structure of a file to load (guessed, then possibly edited), by storage path. */
export const prescriptions = table(
  'prescriptions',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    sourcePath: text('source_path').notNull(),
    prescription: json('prescription').$type<Record<string, unknown>>().notNull(),
    edited: bool('edited').notNull().default(false),
    updated: time('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sourcePath] })],
);

/** Loaded datasets (the API's clusters): the structure they were loaded with and their size. */
export const datasets = table(
  'datasets',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prescription: json('prescription').$type<Record<string, unknown>>().notNull(),
    rows: bigint('rows').notNull(),
    source: text('source'),
    loadedBy: text('loaded_by').notNull(),
    loaded: time('loaded').notNull(),
    dataVersion: int('data_version').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

/**
 * Immutable dataset versions (data/versions.ts): one DuckDB file each under
 * `projects/<id>/datasets/<cluster>/<id>.duckdb`, never written after it is published.
 * `state`: `pending` (written, not yet visible), `current` (what queries read; one per
 * cluster), `old` (superseded at `superseded`; its file is deleted once no process has read
 * it, `lastRead`, for the grace period). Times are ISO-8601 (lastRead throttled per process).
 */
export const datasetVersions = table(
  'dataset_versions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    cluster: text('cluster').notNull(),
    file: text('file').notNull(),
    rows: bigint('rows').notNull(),
    created: time('created').notNull(),
    state: text('state').$type<'pending' | 'current' | 'old'>().notNull(),
    published: time('published'),
    superseded: time('superseded'),
    lastRead: time('last_read'),
  },
  (t) => [index('dataset_versions_project').on(t.projectId, t.state, t.cluster)],
);

/**
 * One writer of a project's data at a time, across processes: the row is the lock, taken or
 * taken over (when `leaseUntil` has passed: its holder died) in one statement, renewed by the
 * holder while it loads, deleted when it is done.
 */
export const projectWriteLocks = table('project_write_locks', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  holder: text('holder').notNull(),
  leaseUntil: time('lease_until').notNull(),
});
