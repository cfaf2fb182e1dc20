// Configuration: every setting is an environment variable with a working default,
// validated once at start-up so a typo fails loudly with the variable's name.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { API_PREFIX } from '../contract/urls.js';
import { parseAgentBudget, parseAiConfig, type AgentBudget, type AiConfig } from './ai/config.js';
import { installed } from '../shared/install-root.js';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** The SQL API's port (PostgreSQL wire protocol); unset: no SQL listener. */
  URSA_SQL_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The SQL API's port as clients reach it (a balancer's), if not URSA_SQL_PORT. */
  URSA_SQL_PUBLIC_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  URSA_SQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  URSA_SQL_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(200),
  URSA_SQL_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  /** PEM files: with both, the SQL API accepts TLS (sslmode=require). */
  URSA_SQL_TLS_CERT: z.string().min(1).optional(),
  URSA_SQL_TLS_KEY: z.string().min(1).optional(),
  URSA_DATA_DIR: z.string().min(1).default('./data'),
  /** PostgreSQL for the metadata (a cluster); unset: SQLite in the data directory. */
  URSA_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  URSA_SITE_URL: z.url().optional(),
  URSA_ADMIN_EMAIL: z.email().default('admin@example.com'),
  URSA_ADMIN_PASSWORD: z.string().min(8).optional(),
  URSA_DEMO: bool.default(true),
  URSA_DEMO_DATA: bool.default(true),
  URSA_AUTH_ISSUER: z.url().optional(),
  URSA_AUTH_AUDIENCE: z.string().min(1).optional(),
  URSA_AUTH_EMAIL_CLAIM: z.string().min(1).default('email'),
  /** The OAuth client Ursa signs people in as at the external provider (browser sign-in). */
  URSA_AUTH_CLIENT_ID: z.string().min(1).optional(),
  URSA_AUTH_CLIENT_SECRET: z.string().min(1).optional(),
  URSA_MCP_AUDIENCE: z.string().min(1).optional(),
  URSA_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  URSA_SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(8 * 3600),
  URSA_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  URSA_MAIL_FROM: z.string().min(3).default('Ursa <no-reply@localhost>'),
  /** Waits (ms, comma-separated) before a subscription mail's second and third SMTP attempts. */
  URSA_MAIL_RETRY_MS: z
    .string()
    .regex(/^\d{1,7}(,\d{1,7}){0,4}$/, {
      message: 'milliseconds separated by commas, such as 5000,30000',
    })
    .default('5000,30000'),
  URSA_PASSWORD_LINK_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(30 * 24)
    .default(7 * 24),
  URSA_PASSWORD_RESETS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  URSA_PLANS_FILE: z.string().min(1).optional(),
  URSA_DEFAULT_PLAN: z.string().min(1).default('free'),
  URSA_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
  URSA_JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** all: serve HTTP and run jobs; api: HTTP and its own queries; worker: jobs and triggers. */
  URSA_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  /** How long a job's claim holds without a heartbeat (a killed process's jobs wait this). */
  URSA_JOB_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  URSA_UPLOAD_TTL_HOURS: z.coerce.number().positive().default(24),
  URSA_RESULT_TTL_HOURS: z.coerce.number().positive().default(168),
  /** How long a superseded dataset version is kept after its last read (data/databases.ts). */
  URSA_VERSION_GRACE_SECONDS: z.coerce.number().min(0).default(300),
  /** How often expired uploads, leftovers of killed writers and old results are removed. */
  URSA_SWEEP_SECONDS: z.coerce.number().min(1).max(86_400).default(600),
  /** /readyz fails when the data directory's filesystem has less free space (0: never). */
  URSA_MIN_FREE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(256 * 1024 * 1024),
  URSA_OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).default(60),
  URSA_MCP_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  /** The earlier name of URSA_MCP_WAIT_MS (it covered only `ask`), still read. */
  URSA_MCP_ASK_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  URSA_TRUST_PROXY: z.string().min(1).optional(),
  /** Hosts connectors may reach although they resolve to private, loopback or link-local addresses. */
  URSA_CONNECTOR_ALLOW_HOSTS: z.string().optional(),
  URSA_SFTP_POLL_SECONDS: z.coerce.number().positive().max(86_400).default(60),
  /** Warehouse projects (warehouse/): a query's time limit, result cache expiry, connections. */
  URSA_WAREHOUSE_TIMEOUT_SECONDS: z.coerce.number().positive().max(86_400).default(120),
  URSA_WAREHOUSE_CACHE_SECONDS: z.coerce
    .number()
    .min(0)
    .max(86_400 * 30)
    .default(60),
  URSA_WAREHOUSE_POOL: z.coerce.number().int().min(1).max(100).default(5),
  /** A load's statements into a warehouse (COPY of a large file) get longer than a query. */
  URSA_WAREHOUSE_LOAD_TIMEOUT_SECONDS: z.coerce.number().positive().max(86_400).default(3600),
  /** Mapping's sample read and row count of a table or view, which a request waits on. */
  URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(10),
  /** How often timers and SFTP watches are checked (ms); tests make it short. */
  URSA_TRIGGER_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Runs caused by other runs (flowSequence, a flow's output firing a file trigger): at most this many in a row… */
  URSA_TRIGGER_CHAIN_DEPTH: z.coerce.number().int().min(1).max(1000).default(10),
  /** …and at most this many of one flow a minute; past either, the trigger firing it is paused. */
  URSA_TRIGGER_CHAIN_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(30),
  URSA_TIMEZONE: z
    .string()
    .min(1)
    .default('UTC')
    .refine(validTimeZone, { message: 'an IANA time zone such as UTC or Europe/Prague' }),
  /** The headless Chromium that renders PDF exports (looked for on the first export). */
  URSA_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * PDF exports printed at once: one per core, 2 to 4. More than the cores only adds memory
   * (each is a Chromium renderer process), not throughput.
   */
  URSA_EXPORT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(Math.min(4, Math.max(2, os.availableParallelism()))),
  URSA_EXPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});

export interface Config {
  port: number;
  host: string;
  /** The SQL API (PostgreSQL wire protocol): its port (0: any free one), or off. */
  sql: {
    port?: number;
    /** The port clients are told (project settings), when a balancer's differs. */
    publicPort?: number;
    statementTimeoutMs: number;
    idleTimeoutMs: number;
    /** Connections at once in this process; more are refused (53300). */
    maxConnections: number;
    /** PEM certificate chain and key files for TLS; both or neither. */
    tls?: { certFile: string; keyFile: string };
  };
  dataDir: string;
  /** PostgreSQL connection URL of the metadata database; undefined: SQLite in `dataDir`. */
  databaseUrl?: string;
  /** Public address of the whole server; `{base_url}` is siteUrl + '/api/v1'. */
  siteUrl: string;
  adminEmail: string;
  adminPassword?: string;
  demo: boolean;
  /** Load the demo datasets into the demo project (false: create it empty). */
  demoData: boolean;
  auth: {
    /** Built-in identity provider unless an external issuer is configured. */
    builtin: boolean;
    issuer: string;
    audience: string;
    emailClaim: string;
    tokenTtlSeconds: number;
    sessionTtlSeconds: number;
    /**
     * The OAuth client of the browser sign-in at an external provider: set, /auth/login sends
     * people there (authorization code flow with PKCE) instead of asking for a password.
     */
    clientId?: string;
    /** Its secret (client_secret_basic); unset for a public client (PKCE only). */
    clientSecret?: string;
  };
  /**
   * The audience (RFC 8707 resource) MCP access tokens must carry; unset means the MCP URL
   * `${siteUrl}/mcp`, read through mcpAudience() once the site URL is final.
   */
  mcpAudience?: string;
  mail: { smtpUrl?: string; from: string; retryDelaysMs: number[] };
  /** One-time links to set a password (invitations, "forgot password"; built-in provider). */
  passwordLinks: {
    ttlHours: number;
    /** "Forgot password" requests allowed per client address and hour. */
    resetsPerHourPerAddress: number;
  };
  plansFile: string;
  defaultPlan: string;
  logLevel: string;
  jobConcurrency: number;
  /** What this process does in a cluster (SCALE.md): all, api or worker. */
  role: 'all' | 'api' | 'worker';
  jobLeaseSeconds: number;
  /** Partial chunked uploads untouched this long are deleted. */
  uploadTtlHours: number;
  /** Stored query results unread this long are deleted (a query asked again recomputes). */
  resultTtlHours: number;
  versionGraceSeconds: number;
  sweepSeconds: number;
  /** Free space of the data directory below which /readyz answers 503. */
  minFreeBytes: number;
  /** The AI chat's provider (URSA_AI_*); null: chat answers 503 saying how to configure one. */
  ai: AiConfig | null;
  aiAgent: AgentBudget;
  /**
   * How long an MCP tool call (run_aql, run_report, ask) waits for its job before answering
   * RUNNING with a handle to collect it: under the 60 s request timeout MCP clients use.
   */
  mcpWaitMs: number;
  /** OAuth dynamic client registrations allowed per client address and hour. */
  oauthRegistrationsPerHour: number;
  /**
   * Which proxies' X-Forwarded-For names the client (Express "trust proxy"): false (none,
   * the socket's address), a hop count, or addresses/subnets such as "loopback, 10.0.0.0/8".
   */
  trustProxy: boolean | number | string;
  /** The IANA time zone of AQL's TODAY(). */
  timeZone: string;
  flows: {
    /** Host names or addresses (lower case) connectors may reach on private networks. */
    allowHosts: string[];
    sftpPollSeconds: number;
    triggerTickMs: number;
    /** Chained runs (caused by other runs) in a row, and of one flow per minute. */
    chainDepth: number;
    chainPerMinute: number;
  };
  /** PDF export: the Chromium binary, exports rendered at once, and their time limit. */
  export: { chromiumPath: string; concurrency: number; timeoutMs: number };
  /** Warehouse projects: statement timeouts (queries, loads), result cache expiry, connections per server. */
  warehouse: {
    timeoutMs: number;
    loadTimeoutMs: number;
    sampleTimeoutMs: number;
    cacheMs: number;
    pool: number;
  };
}

/** The REST API's prefix (the contract's URL builder owns it). */
export { API_PREFIX };
export const MCP_PATH = '/mcp';

/** The audience of MCP access tokens: URSA_MCP_AUDIENCE, else the MCP URL itself. */
export function mcpAudience(config: Pick<Config, 'siteUrl' | 'mcpAudience'>): string {
  return config.mcpAudience ?? `${config.siteUrl}${MCP_PATH}`;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty variables count as unset, the way shells usually mean them.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (Boolean(e.URSA_AUTH_ISSUER) !== Boolean(e.URSA_AUTH_AUDIENCE)) {
    throw new Error(
      'invalid configuration: set both URSA_AUTH_ISSUER and URSA_AUTH_AUDIENCE, or neither',
    );
  }
  if (e.URSA_AUTH_CLIENT_ID && !e.URSA_AUTH_ISSUER) {
    throw new Error(
      'invalid configuration: URSA_AUTH_CLIENT_ID is for an external provider: set URSA_AUTH_ISSUER too',
    );
  }
  if (e.URSA_AUTH_CLIENT_SECRET && !e.URSA_AUTH_CLIENT_ID) {
    throw new Error('invalid configuration: URSA_AUTH_CLIENT_SECRET needs URSA_AUTH_CLIENT_ID');
  }
  let ai: AiConfig | null;
  let aiAgent: AgentBudget;
  try {
    ai = parseAiConfig(cleaned);
    aiAgent = parseAgentBudget(cleaned);
  } catch (err) {
    throw new Error(
      (err as Error).message.replace(/^invalid AI configuration/, 'invalid configuration'),
      {
        cause: err,
      },
    );
  }
  if (!e.URSA_SQL_TLS_CERT !== !e.URSA_SQL_TLS_KEY)
    throw new Error(
      'invalid configuration: URSA_SQL_TLS_CERT and URSA_SQL_TLS_KEY are set together (the certificate and its key)',
    );
  const siteUrl = (e.URSA_SITE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const builtin = !e.URSA_AUTH_ISSUER;
  return {
    port: e.PORT,
    host: e.HOST,
    sql: {
      ...(e.URSA_SQL_PORT !== undefined ? { port: e.URSA_SQL_PORT } : {}),
      ...(e.URSA_SQL_PUBLIC_PORT !== undefined ? { publicPort: e.URSA_SQL_PUBLIC_PORT } : {}),
      statementTimeoutMs: e.URSA_SQL_STATEMENT_TIMEOUT_MS,
      idleTimeoutMs: e.URSA_SQL_IDLE_TIMEOUT_MS,
      maxConnections: e.URSA_SQL_MAX_CONNECTIONS,
      ...(e.URSA_SQL_TLS_CERT && e.URSA_SQL_TLS_KEY
        ? { tls: { certFile: e.URSA_SQL_TLS_CERT, keyFile: e.URSA_SQL_TLS_KEY } }
        : {}),
    },
    dataDir: path.resolve(e.URSA_DATA_DIR),
    databaseUrl: e.URSA_DATABASE_URL,
    siteUrl,
    adminEmail: e.URSA_ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.URSA_ADMIN_PASSWORD,
    demo: e.URSA_DEMO,
    demoData: e.URSA_DEMO_DATA,
    auth: {
      builtin,
      issuer: (e.URSA_AUTH_ISSUER ?? `${siteUrl}/auth`).replace(/\/+$/, ''),
      audience: e.URSA_AUTH_AUDIENCE ?? `${siteUrl}${API_PREFIX}`,
      emailClaim: e.URSA_AUTH_EMAIL_CLAIM,
      tokenTtlSeconds: e.URSA_TOKEN_TTL_SECONDS,
      sessionTtlSeconds: e.URSA_SESSION_TTL_SECONDS,
      clientId: e.URSA_AUTH_CLIENT_ID,
      clientSecret: e.URSA_AUTH_CLIENT_SECRET,
    },
    mcpAudience: e.URSA_MCP_AUDIENCE,
    mail: {
      smtpUrl: e.URSA_SMTP_URL,
      from: e.URSA_MAIL_FROM,
      retryDelaysMs: e.URSA_MAIL_RETRY_MS.split(',').map(Number),
    },
    passwordLinks: {
      ttlHours: e.URSA_PASSWORD_LINK_TTL_HOURS,
      resetsPerHourPerAddress: e.URSA_PASSWORD_RESETS_PER_HOUR,
    },
    plansFile: path.resolve(e.URSA_PLANS_FILE ?? installed('config', 'plans.yaml')),
    defaultPlan: e.URSA_DEFAULT_PLAN,
    logLevel: e.URSA_LOG_LEVEL,
    jobConcurrency: e.URSA_JOB_CONCURRENCY,
    role: e.URSA_ROLE,
    jobLeaseSeconds: e.URSA_JOB_LEASE_SECONDS,
    uploadTtlHours: e.URSA_UPLOAD_TTL_HOURS,
    resultTtlHours: e.URSA_RESULT_TTL_HOURS,
    versionGraceSeconds: e.URSA_VERSION_GRACE_SECONDS,
    sweepSeconds: e.URSA_SWEEP_SECONDS,
    minFreeBytes: e.URSA_MIN_FREE_BYTES,
    ai,
    aiAgent,
    mcpWaitMs: e.URSA_MCP_WAIT_MS ?? e.URSA_MCP_ASK_WAIT_MS ?? 45_000,
    oauthRegistrationsPerHour: e.URSA_OAUTH_REGISTRATIONS_PER_HOUR,
    trustProxy: parseTrustProxy(e.URSA_TRUST_PROXY),
    timeZone: e.URSA_TIMEZONE,
    warehouse: {
      timeoutMs: Math.round(e.URSA_WAREHOUSE_TIMEOUT_SECONDS * 1000),
      loadTimeoutMs: Math.round(e.URSA_WAREHOUSE_LOAD_TIMEOUT_SECONDS * 1000),
      sampleTimeoutMs: Math.round(e.URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS * 1000),
      cacheMs: Math.round(e.URSA_WAREHOUSE_CACHE_SECONDS * 1000),
      pool: e.URSA_WAREHOUSE_POOL,
    },
    flows: {
      allowHosts: (e.URSA_CONNECTOR_ALLOW_HOSTS ?? '')
        .split(',')
        .map((h) =>
          h
            .trim()
            .toLowerCase()
            .replace(/^\[|\]$/g, ''),
        )
        .filter(Boolean),
      sftpPollSeconds: e.URSA_SFTP_POLL_SECONDS,
      triggerTickMs: e.URSA_TRIGGER_TICK_MS,
      chainDepth: e.URSA_TRIGGER_CHAIN_DEPTH,
      chainPerMinute: e.URSA_TRIGGER_CHAIN_PER_MINUTE,
    },
    export: {
      chromiumPath: e.URSA_CHROMIUM_PATH,
      concurrency: e.URSA_EXPORT_CONCURRENCY,
      timeoutMs: e.URSA_EXPORT_TIMEOUT_MS,
    },
  };
}

/** URSA_TRUST_PROXY: unset or false, true (every proxy: only behind one that overwrites the
 * header), a number of hops, or a comma-separated list of addresses and subnets. */
function parseTrustProxy(v: string | undefined): boolean | number | string {
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

/** Whether `tz` is an IANA time zone this runtime knows. */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** Today's date, "YYYY-MM-DD", in a time zone (en-CA writes dates that way). */
export function todayIn(timeZone: string, now = new Date()): string {
  // Asked on every compile: formatting a date costs more than the compile cache lookup.
  const second = Math.floor(now.getTime() / 1000);
  const hit = lastDay.get(timeZone);
  if (hit && hit.second === second) return hit.day;
  let f = dayFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(timeZone, f);
  }
  const day = f.format(now);
  lastDay.set(timeZone, { second, day });
  return day;
}

const lastDay = new Map<string, { second: number; day: string }>();
