// The engine: every capability of the product, with no HTTP in it. Front doors (REST, MCP,
// site, CLI) hold one Engine and call it with a Principal or a ProjectActor.
import path from 'node:path';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import {
  resolveActor,
  type Principal,
  type ProjectActor,
  type ResolveOptions,
} from './access/actor.js';
import { ActivityLog } from './activity/activity.js';
import { providerFromConfig } from './ai/providers.js';
import { AiService } from './ai/service.js';
import { API_PREFIX, MCP_PATH, mcpAudience, todayIn, type Config } from './config.js';
import { first, openStore, tablesOf, type Db, type Store } from './db/index.js';
import { Exports } from './export/exports.js';
import { Readiness } from './health/readiness.js';
import {
  loadOrCreateCookieKeys,
  loadOrCreateSigningKey,
  type SigningKey,
} from './identity/keys.js';
import { OidcModels } from './identity/oidc-adapter.js';
import { createSession, deleteSession, sessionEmail } from './identity/sessions.js';
import { Revocations } from './identity/revocations.js';
import { Throttle } from './identity/throttle.js';
import { SqlPasswords } from './sql/passwords.js';
import { Delivery } from './delivery/alerts.js';
import { ExternalLogin } from './identity/external-login.js';
import { issueAccessToken, TokenVerifier } from './identity/tokens.js';
import { randomId } from './ids.js';
import { JobRunner } from './jobs/jobs.js';
import { Limits } from './limits/limits.js';
import { loadPlans, type Plans } from './limits/plans.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { Orgs } from './orgs/orgs.js';
import { Projects } from './projects/projects.js';
import { Aql } from './aql/service.js';
import { WarehouseLoads } from './warehouse/load.js';
import { createBackends } from './backends/create.js';
import { TableMapping } from './warehouse/mapping.js';
import { Warehouse } from './warehouse/warehouse.js';
import { filterRefs, migrateSavedAql, shownFilter } from './aql/saved-refs.js';
import { CatalogService } from './catalog/catalog.js';
import { SqlService } from './sql/service.js';
import { ProjectDatabases } from './data/databases.js';
import { VersionStore } from './data/versions.js';
import { Datasets } from './data/datasets.js';
import { Loads } from './data/loads.js';
import { Packages } from './data/packages/packages.js';
import { Prescriptions } from './data/prescriptions.js';
import { Flows } from './flows/flows.js';
import { Triggers } from './flows/triggers/triggers.js';
import { ModelObjects } from './model/objects.js';
import { SecretBox } from './model/secrets.js';
import { ModelStore } from './model/store.js';
import { DavLockStore } from './storage/dav-locks.js';
import { MCP_SESSION_IDLE_MS, McpSessions } from './identity/mcp-sessions.js';
import { Reports } from './reports/reports.js';
import { Shares } from './sharing/shares.js';
import { DavProps } from './storage/dav-props.js';
import { ProjectFiles } from './storage/project-files.js';
import { Storage } from './storage/storage.js';
import { Uploads } from './storage/uploads.js';
import { Accounts } from './users/accounts.js';
import { Members } from './users/members.js';
import { PasswordLinks } from './users/password-links.js';
import { RowFilterGuard } from './users/row-filter-guard.js';

export class Engine {
  private readonly lifetime = new AbortController();
  readonly db: Db;
  readonly plans: Plans;
  readonly limits: Limits;
  readonly activity: ActivityLog;
  readonly orgs: Orgs;
  readonly accounts: Accounts;
  readonly projects: Projects;
  readonly members: Members;
  /** One-time links to set a password: invitations and "forgot password". */
  readonly passwordLinks: PasswordLinks;
  readonly jobs: JobRunner;
  readonly mailer: Mailer;
  readonly verifier: TokenVerifier;
  /**
   * Project files for front doors: every call takes the actor and checks its rights. The raw
   * store below it (`storage`, project ids, no rights) stays inside the engine.
   */
  readonly files: ProjectFiles;
  /** WebDAV lock records every process honours (src/rest/webdav/locks.ts). */
  readonly davLocks: DavLockStore;
  private readonly storage: Storage;
  /** Raw, by project id, no rights checked: for engine services and tests, never front doors. */
  readonly dbs: ProjectDatabases;
  /** Raw, by project id, no rights checked: for engine services and tests, never front doors. */
  readonly model: ModelStore;
  /** The semantic model API (pmd/obj…): levels, ACLs and visibility enforced. */
  readonly objects: ModelObjects;
  readonly datasets: Datasets;
  readonly prescriptions: Prescriptions;
  readonly loads: Loads;
  readonly aql: Aql;
  readonly warehouse: Warehouse;
  readonly catalog: CatalogService;
  /** The SQL API's statements (the wire protocol is src/sql's). */
  readonly sql: SqlService;
  readonly sqlPasswords: SqlPasswords;
  /** The SQL API listener's port in this process (set by the door when it listens). */
  private sqlPort: number | null = null;
  readonly packages: Packages;
  readonly uploads: Uploads;
  /** AI chat: conversations and `ai` jobs answered by the agent. */
  readonly ai: AiService;
  /** Storage of the built-in OAuth authorization server (clients, grants, refresh tokens…). */
  readonly oidcModels: OidcModels;
  /** Limits on guessing passwords and tokens, and on client registration (shared by processes). */
  readonly throttle: Throttle;
  /** Revoked access tokens and grants, refused by the verifier. */
  readonly revocations: Revocations;
  /** MCP sessions any process may serve (src/mcp/http.ts). */
  readonly mcpSessions: McpSessions;
  /** Data integration: flow runs (jobs of type flow) and the box catalog. */
  readonly flows: Flows;
  readonly delivery: Delivery;
  /** Reports and dashboards computed for a reader (charts, KPIs, dashboard filters). */
  readonly reports: Reports;
  /** Dashboard shares: private ones open dashboards to named members, public ones to anyone. */
  readonly shares: Shares;
  /** Timers and watchers that start flows; started by the server once it serves. */
  readonly triggers: Triggers;
  /** PDF export: HTML printed by one headless Chromium, launched on the first export. */
  readonly exports: Exports;
  /** Whether this process is ready for traffic (database, migrations, data directory). */
  readonly readiness: Readiness;
  /** Stops following project deletions made by other processes. */
  private unfollowDeletes: () => void = () => undefined;

  /** The SQL API door tells the port it listens on (shown in connection details). */
  sqlListening(port: number | null): void {
    this.sqlPort = port;
  }

  private constructor(
    readonly config: Config,
    readonly log: Logger,
    readonly signingKey: SigningKey | undefined,
    readonly store: Store,
  ) {
    this.db = store.db;
    this.plans = loadPlans(config.plansFile, config.defaultPlan);
    this.orgs = new Orgs(this.db, this.plans);
    this.model = new ModelStore(this.db);
    this.activity = new ActivityLog(this.db, this.model);
    this.limits = new Limits(
      async (projectId) =>
        this.plans[
          (await this.orgs.get(await this.projects.orgOf(projectId)))?.plan ?? config.defaultPlan
        ]!,
    );
    this.accounts = new Accounts(this.db);
    this.projects = new Projects(
      this.db,
      config.dataDir,
      this.orgs,
      this.plans,
      this.limits,
      this.activity,
    );
    this.mailer = createMailer({
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      outboxDir: path.join(config.dataDir, 'outbox'),
    });
    this.passwordLinks = new PasswordLinks(this.db, this.accounts, this.mailer, log, config);
    this.members = new Members(
      this.db,
      this.limits,
      this.activity,
      this.mailer,
      config.siteUrl,
      (email, next) => this.passwordLinks.invitationSignIn(email, next),
    );
    const versions = new VersionStore(this.db);
    this.jobs = new JobRunner(this.db, log, {
      concurrency: config.jobConcurrency,
      // An API process runs the queries it is asked; loads, flows and answers go to workers.
      runs: (type) => config.role !== 'api' || type === 'report',
      leaseMs: config.jobLeaseSeconds * 1000,
      // A process killed mid-load held its project's write lock: the next load need not wait.
      onDeadProcess: async (p) => void (await versions.releaseProcess(p)),
    });
    this.throttle = new Throttle(this.db);
    this.revocations = new Revocations(this.db, config.auth.tokenTtlSeconds);
    this.mcpSessions = new McpSessions(this.db, MCP_SESSION_IDLE_MS);
    this.verifier = new TokenVerifier(
      config.auth,
      signingKey,
      (claims) => this.revocations.isRevoked(claims),
      [
        {
          url: config.auth.audience,
          name: `the REST API (${API_PREFIX})`,
          howToGet: `send one issued for ${config.auth.audience} (an OAuth client asks for that resource; "npm run ursa -- token <email>" prints one)`,
        },
        {
          url: mcpAudience(config),
          name: `the MCP server (${MCP_PATH})`,
          howToGet: `send one issued for ${mcpAudience(config)} (an MCP client gets one through OAuth; "npm run ursa -- token <email> --mcp" prints one)`,
        },
      ],
    );
    this.storage = new Storage((p) => this.projects.dir(p), this.limits);
    this.files = new ProjectFiles(this.storage, DavProps.following(this.db, this.storage));
    this.davLocks = new DavLockStore(this.db);
    this.dbs = new ProjectDatabases(
      (p) => this.projects.dir(p),
      versions,
      config.versionGraceSeconds * 1000,
    );
    this.projects.onDelete((p) => this.dbs.close(p));
    this.datasets = new Datasets(this.db, this.model);
    const secrets = SecretBox.open(config.dataDir);
    this.objects = new ModelObjects(this.db, this.model, this.datasets, this.activity, secrets);
    this.prescriptions = new Prescriptions(this.db, this.storage, this.datasets);
    this.warehouse = new Warehouse({
      db: this.db,
      scope: (a) => this.objects.scope(a),
      credentials: (p, ident) => this.flows.credentialsOf(p, ident),
      bumpModelVersion: (p) => this.model.bumpModelVersion(p),
      datasetSources: (p) => this.datasets.rows(p),
      settings: {
        timeoutMs: config.warehouse.timeoutMs,
        loadTimeoutMs: config.warehouse.loadTimeoutMs,
        sampleTimeoutMs: config.warehouse.sampleTimeoutMs,
        pool: config.warehouse.pool,
        net: { allowHosts: config.flows.allowHosts },
      },
      cacheMs: config.warehouse.cacheMs,
    });
    this.projects.setWarehouseBinder(this.warehouse);
    // Each project's kind picks where its queries run and its loads go, once (backends/).
    const backends = createBackends({
      dbs: this.dbs,
      datasets: this.datasets,
      warehouse: this.warehouse,
      warehouseLoads: new WarehouseLoads({
        warehouse: this.warehouse,
        datasets: this.datasets,
        scratchDir: (p) => path.join(this.projects.dir(p), 'warehouse-loads'),
      }),
    });
    this.loads = new Loads(
      this.db,
      this.storage,
      backends,
      this.prescriptions,
      this.datasets,
      this.model,
      this.limits,
      this.activity,
      this.jobs,
    );
    this.loads.setTableMapper(
      new TableMapping({
        db: this.db,
        warehouse: this.warehouse,
        loads: this.loads,
        datasets: this.datasets,
        model: this.model,
        activity: this.activity,
        jobs: this.jobs,
        storage: this.storage,
      }),
    );
    this.aql = new Aql(
      this.model,
      this.datasets,
      backends,
      this.jobs,
      (p) => this.projects.dir(p),
      () => todayIn(config.timeZone),
    );
    this.reports = new Reports(this.objects, this.aql);
    this.shares = new Shares({
      db: this.db,
      objects: this.objects,
      model: this.model,
      members: this.members,
      reports: this.reports,
      activity: this.activity,
      mailer: this.mailer,
      siteUrl: () => config.siteUrl,
      actorOf: (email, projectId) => this.actor({ email }, projectId),
    });
    this.reports.setShareGrant((p, dashboard, email) =>
      this.shares.sharedWith(p, dashboard, email),
    );
    this.catalog = new CatalogService(
      this.aql,
      backends,
      async (p) => (await this.model.versions(p)).dataVersion,
    );
    this.sqlPasswords = new SqlPasswords({
      db: this.db,
      siteUrl: () => config.siteUrl,
      port: () => config.sql.publicPort ?? this.sqlPort,
      tls: Boolean(config.sql.tls),
      activity: this.activity,
    });
    this.sql = new SqlService({
      aql: this.aql,
      catalog: this.catalog,
      jobs: this.jobs,
      verify: (token) => this.verifier.verify(token),
      actor: (p, projectId) => this.actor(p, projectId),
      statementTimeoutMs: config.sql.statementTimeoutMs,
      activity: this.activity,
      signals: store.signals,
      throttle: this.throttle,
      passwords: this.sqlPasswords,
    });
    this.reports.setValueLister((a, ref, o) => this.catalog.attributeValues(a, ref, o));
    // A row-level filter is an AQL condition on the project's model.
    this.members.setFilterValidator((filter, projectId) =>
      this.aql.validateCondition(projectId, filter),
    );
    // Saved AQL names objects by identifier, and reads with their current titles.
    this.members.setFilterRefs(filterRefs((p) => this.aql.snapshot(p)));
    this.projects.setFilterView(async (a) => shownFilter(await this.aql.snapshot(a.projectId), a));
    // Only Admins and User Admins change what a member's row filter selects, also by the model.
    const guard = new RowFilterGuard(this.members, (p) => this.aql.snapshot(p));
    this.objects.setRowFilterGuard(guard);
    this.loads.setRowFilterGuard(guard);
    // Saved metrics, filters and reports must compile when written; pmd/check/obj re-checks them.
    this.objects.setCompileCheck((actor, aql, kind) => this.aql.checkCompiles(actor, aql, kind));
    this.packages = new Packages(
      this.db,
      this.storage,
      this.dbs,
      this.datasets,
      this.prescriptions,
      this.loads,
    );
    this.uploads = new Uploads(
      this.db,
      this.storage,
      (p) => this.projects.dir(p),
      config.uploadTtlHours,
    );
    this.oidcModels = new OidcModels(this.db, (grantId) => this.revocations.revokeGrant(grantId));
    this.ai = new AiService({
      db: this.db,
      jobs: this.jobs,
      limits: this.limits,
      activity: this.activity,
      log,
      aql: this.aql,
      catalog: this.catalog,
      objects: this.objects,
      reports: this.reports,
      siteUrl: () => config.siteUrl,
      provider: config.ai ? providerFromConfig(config.ai) : null,
      budget: config.aiAgent,
      actorOf: (email, projectId) => this.actor({ email }, projectId),
    });
    this.flows = new Flows({
      db: this.db,
      model: this.model,
      objects: this.objects,
      jobs: this.jobs,
      loads: this.loads,
      datasets: this.datasets,
      storage: this.storage,
      activity: this.activity,
      projectDir: (p) => this.projects.dir(p),
      today: () => todayIn(config.timeZone),
      net: { allowHosts: config.flows.allowHosts },
    });
    this.delivery = new Delivery({
      db: this.db,
      model: this.model,
      log,
      tickMs: config.flows.triggerTickMs,
      objects: this.objects,
      aql: this.aql,
      jobs: this.jobs,
      mailer: this.mailer,
      net: { allowHosts: config.flows.allowHosts },
      siteUrl: () => config.siteUrl,
      projectLabel: async (p) => (await this.projects.labelOf(p)) ?? p,
      reports: this.reports,
      activity: this.activity,
      // Made below; used only once jobs run.
      exports: { pdfAndImage: (...args) => this.exports.pdfAndImage(...args) },
      secrets,
      retryDelaysMs: config.mail.retryDelaysMs,
      sendConcurrency: config.export.concurrency,
      // Made below; asked only once jobs run.
      mayMail: (p, n) => this.limits.check(p, 'emailsPerDay', n),
    });
    this.objects.setLimitCheck((p, name, extra) => this.limits.check(p, name, extra));
    this.triggers = new Triggers({
      db: this.db,
      model: this.model,
      objects: this.objects,
      jobs: this.jobs,
      activity: this.activity,
      storage: this.storage,
      flows: this.flows,
      actorOf: (email, projectId) => this.actor({ email }, projectId),
      credentials: (projectId, ident) => this.flows.credentialsOf(projectId, ident),
      config: config.flows,
      log,
    });
    this.exports = new Exports(config.export, log);
    this.readiness = new Readiness({
      store,
      dataDir: config.dataDir,
      minFreeBytes: config.minFreeBytes,
      log,
    });
    this.registerUsage();
  }

  static async open(config: Config, log: Logger): Promise<Engine> {
    const key = config.auth.builtin ? await loadOrCreateSigningKey(config.dataDir) : undefined;
    const store = await openStore(config, log);
    const engine = new Engine(config, log, key, store);
    try {
      engine.unfollowDeletes = await engine.projects.followDeletes();
      await migrateSavedAql(engine.model, engine.members, log);
    } catch (err) {
      await store.close();
      throw err;
    }
    return engine;
  }

  private registerUsage(): void {
    const { jobs } = tablesOf(this.db);
    this.limits.registerUsage('users', (p) => this.members.countActive(p));
    this.limits.registerUsage('projects', async (p) =>
      this.projects.countInOrg(await this.projects.orgOf(p)),
    );
    this.limits.registerUsage(
      'flows',
      async (p) => (await this.model.listByType(p, ['flow'])).length,
    );
    this.limits.registerUsage(
      'deliveries',
      async (p) => (await this.model.listByType(p, ['subscription', 'alert'])).length,
    );
    this.limits.registerUsage('emailsPerDay', (p) => this.delivery.mailsSince(p, 86_400_000));
    this.limits.registerUsage('datasetRows', (p) => this.datasets.totalRows(p));
    this.limits.registerUsage('storageBytes', async (p) => (await this.storage.quota(p)).used);
    this.limits.registerUsage('aiMessagesPerDay', async (p) => {
      const since = new Date(Date.now() - 86_400_000).toISOString();
      return (
        (
          await this.db
            .select({ n: sql<number>`count(*)`.mapWith(Number) })
            .from(jobs)
            .where(and(eq(jobs.projectId, p), eq(jobs.type, 'ai'), gt(jobs.created, since)))
            .then(first)
        )?.n ?? 0
      );
    });
  }

  actor(p: Principal, projectId: string, opts?: ResolveOptions): Promise<ProjectActor> {
    return resolveActor(this.db, p, projectId, opts);
  }

  /** A bearer token for a user, signed by the built-in identity provider. */
  async issueToken(
    email: string,
    opts?: { ttlSeconds?: number; audience?: string },
  ): Promise<string> {
    if (!this.signingKey)
      throw new Error(
        'tokens are issued by the external identity provider configured in URSA_AUTH_ISSUER',
      );
    return issueAccessToken(this.signingKey, this.config.auth, email, opts);
  }

  /** Secrets signing the OAuth server's cookies, kept in the data directory. */
  oauthCookieKeys(): string[] {
    return loadOrCreateCookieKeys(this.config.dataDir);
  }

  private externalLoginClient?: ExternalLogin;

  /** The browser sign-in at the external identity provider, when a client id is configured. */
  externalLogin(): ExternalLogin | undefined {
    const a = this.config.auth;
    if (a.builtin || !a.clientId) return undefined;
    // Made on first use: the site URL (in the redirect URI) is final once the port listens.
    this.externalLoginClient ??= new ExternalLogin({
      issuer: a.issuer,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
      emailClaim: a.emailClaim,
      redirectUri: `${this.config.siteUrl}/auth/callback`,
    });
    return this.externalLoginClient;
  }

  startSession(email: string) {
    return createSession(this.db, email, this.config.auth.sessionTtlSeconds);
  }

  sessionUser(id: string): Promise<string | null> {
    return sessionEmail(this.db, id);
  }

  async endSession(id: string): Promise<void> {
    await deleteSession(this.db, id);
  }

  genid(): string {
    return randomId(20);
  }

  /** Aborted when close() starts: what runs beside the engine (a door's timers) stops with it. */
  get closing(): AbortSignal {
    return this.lifetime.signal;
  }

  async close(): Promise<void> {
    this.lifetime.abort();
    this.unfollowDeletes();
    await this.exports.close();
    await this.triggers.stop();
    await this.delivery.stop();
    await this.jobs.stop();
    await this.dbs.closeAll();
    this.sql.close();
    await this.warehouse.closeAll();
    await this.passwordLinks.idle();
    this.mailer.close();
    await this.store.close();
  }
}
