// The `def` of every model object type (docs/api.md "Semantic model"). Zod checks the shape;
// whether the objects a def names exist is checked on each write (object-refs.ts), which sees
// the whole model including the other objects of the same batch.
import { sameJson } from '../same-json.js';
import { Cron } from 'croner';
import { z } from 'zod';
import { COLOR, THRESHOLD_OPS } from '../../shared/conditional.js';
import type { AclEntry } from '../../contract/model.js';
import { validTimeZone } from '../config.js';
import { DATA_TYPE_NAMES } from '../data/prescription.js';
import { HEADER_NAME, RESERVED_HEADERS } from '../flows/connectors/http-headers.js';

export const OBJECT_TYPES = [
  'attribute',
  'label',
  'fact',
  'metric',
  'filter',
  'report',
  'dashboard',
  'folder',
  'userrole',
  'flow',
  'trigger',
  'credentials',
  'alert',
  'subscription',
] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** Model columns: only data loads create, change the def of, or delete these. */
export const LOAD_TYPES: readonly ObjectType[] = ['attribute', 'label', 'fact'];

/** Types AQL names by title (`[Revenue]`): a title belongs to one of them, in any case. */
export const TITLED_TYPES: readonly string[] = ['attribute', 'label', 'fact', 'metric', 'filter'];
export const titleKey = (name: string): string => name.trim().toLowerCase();

export const isObjectType = (t: string): t is ObjectType =>
  (OBJECT_TYPES as readonly string[]).includes(t);

/** An object identifier; no brackets or quotes, so `[ident]` always works in AQL. */
export const IDENT_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,199}$/;
export const zIdent = z.string().regex(IDENT_RE, {
  error: 'must start with a letter and hold only letters, digits, "_", "." and "-" (≤ 200)',
});

const AQL_MAX = 100_000;
const zAql = z.string().trim().min(1, { error: 'AQL text is empty' }).max(AQL_MAX);
const zText = (max: number) => z.string().max(max);

// ---- created by loads (datasets.ts writes them; listed here for validation and docs) ----

const loadBase = {
  dataset: z.string(),
  column: z.string(),
  dataType: z.enum(DATA_TYPE_NAMES),
  source: z.literal('load'),
};

export const attributeDef = z
  .object({
    ...loadBase,
    primaryKey: z.boolean().optional(),
    reference: z
      .object({ dataset: z.string(), attribute: z.string().nullable() })
      .strict()
      .optional(),
  })
  .strict();

export const labelDef = z.object({ ...loadBase, attribute: z.string() }).strict();

export const factDef = z.object(loadBase).strict();

// ---- created through the API ----

/** `SELECT <measure> [BY ALL …] [WHERE …]`; `format` is a display hint such as `#,##0.00`. */
export const metricDef = z.object({ aql: zAql, format: zText(100).optional() }).strict();

/** An AQL condition (`[Region] = "EU"`). */
export const filterDef = z.object({ aql: zAql }).strict();

export const VISUALIZATION_TYPES = [
  'table',
  'bar',
  'line',
  'area',
  'pie',
  'scatter',
  'kpi',
  'pivot',
  'combo',
  'funnel',
  'gauge',
  'map',
] as const;
const zColumnRef = z.union([z.string().max(500), z.number().int().min(1)]);
const zColumnRefs = z.union([zColumnRef, z.array(zColumnRef).max(10)]);
const zColor = z.string().regex(COLOR, 'a colour is #rrggbb (six hex digits)');
/** A table's conditional formatting (shared/conditional.ts): colour scales and thresholds. */
const zConditional = z
  .array(
    z.discriminatedUnion('type', [
      z
        .object({
          column: zColumnRef,
          type: z.literal('scale'),
          colors: z.array(zColor).min(2).max(3),
        })
        .strict(),
      z
        .object({
          column: zColumnRef,
          type: z.literal('threshold'),
          op: z.enum(THRESHOLD_OPS),
          value: z.number(),
          to: z.number().optional(),
          background: zColor.optional(),
          color: zColor.optional(),
        })
        .strict()
        .refine((r) => r.background !== undefined || r.color !== undefined, {
          message: 'a threshold sets a background, a color or both',
        })
        .refine((r) => (r.op === 'between') === (r.to !== undefined), {
          message: "'between' needs `to` (the upper end); other operators take none",
        }),
    ]),
  )
  .max(20);

/** Column choices name result columns by title or 1-based position; other keys are styling. */
export const visualization = z
  .object({
    type: z.enum(VISUALIZATION_TYPES),
    x: zColumnRef.optional(),
    y: z.union([zColumnRef, z.array(zColumnRef).max(50)]).optional(),
    color: zColumnRef.optional(),
    /** A pivot's row and column dimensions. */
    rows: zColumnRefs.optional(),
    columns: zColumnRefs.optional(),
    conditional: zConditional.optional(),
    // Chart types' own keys (docs/api.md "Visualization"); any other key is kept as styling.
    stack: z.enum(['normal', 'percent']).optional(),
    line: z.union([zColumnRef, z.array(zColumnRef).max(50)]).optional(),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    target: z.number().finite().optional(),
    map: z.enum(['us-states', 'world']).optional(),
    latitude: zColumnRef.optional(),
    longitude: zColumnRef.optional(),
  })
  .loose()
  .refine((v) => v.conditional === undefined || v.type === 'table', {
    message: 'conditional formatting is for a table visualization',
    path: ['conditional'],
  })
  .refine((v) => v.min === undefined || v.max === undefined || v.min < v.max, {
    message: 'min must be below max',
    path: ['max'],
  });

export const reportDef = z.object({ aql: zAql, visualization }).strict();

const zInt = z.number().int();
const zItemId = z.string().min(1).max(100);
/** A dashboard's auto-refresh: every this many seconds (1 minute to 1 day). */
export const REFRESH_SECONDS = { min: 60, max: 86_400 };
export const dashboardDef = z
  .object({
    items: z
      .array(
        // An item shows a report, or a text (a heading, a note; Markdown) written on the
        // dashboard; on a dashboard with tabs, `tab` is the tab it is on (else the first).
        z.union([
          z
            .object({
              id: zItemId,
              report: zIdent,
              title: zText(255).optional(),
              tab: zItemId.optional(),
            })
            .strict(),
          z
            .object({
              id: zItemId,
              text: z.string().min(1).max(10_000),
              title: zText(255).optional(),
              tab: zItemId.optional(),
            })
            .strict(),
        ]),
      )
      .max(500),
    layout: z
      .array(
        z
          .object({
            item: zItemId,
            x: zInt.min(0),
            y: zInt.min(0),
            w: zInt.min(1),
            h: zInt.min(1),
          })
          .strict(),
      )
      .max(500)
      .default([]),
    filters: z
      .array(
        z
          .object({
            attribute: zIdent,
            values: z.array(z.string().max(1000)).max(10_000).optional(),
            aql: zAql.optional(),
            // The items it narrows (their ids); left out, every item.
            items: z.array(zItemId).min(1).max(500).optional(),
          })
          .strict(),
      )
      .max(100)
      .default([]),
    // Pages of items: each item on one (its `tab`), the first tab for those naming none.
    tabs: z
      .array(z.object({ id: zItemId, title: z.string().trim().min(1).max(100) }).strict())
      .max(20)
      .optional(),
    // Seconds between automatic refreshes of an open dashboard; left out, none.
    refresh: zInt.min(REFRESH_SECONDS.min).max(REFRESH_SECONDS.max).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const ids = new Set(d.items.map((i) => i.id));
    const tabs = new Set<string>();
    (d.tabs ?? []).forEach((t, i) => {
      if (tabs.has(t.id))
        ctx.addIssue({ code: 'custom', path: ['tabs', i, 'id'], message: `tab "${t.id}" twice` });
      tabs.add(t.id);
    });
    d.items.forEach((it, i) => {
      if (it.tab !== undefined && !tabs.has(it.tab))
        ctx.addIssue({
          code: 'custom',
          path: ['items', i, 'tab'],
          message: `"${it.tab}" is not a tab of this dashboard; its tabs: ${[...tabs].join(', ') || 'none'}`,
        });
    });
    d.filters.forEach((f, i) =>
      f.items?.forEach((id, j) => {
        if (!ids.has(id))
          ctx.addIssue({
            code: 'custom',
            path: ['filters', i, 'items', j],
            message: `"${id}" is not an item of this dashboard`,
          });
      }),
    );
  });

export const folderDef = z.object({ content: z.array(zIdent).max(10_000) }).strict();

/** A group of users: members listed here, or project users naming the role in `roles`. */
export const userroleDef = z
  .object({ members: z.array(z.string().min(3).max(320)).max(10_000).optional() })
  .strict();

/** Flows come with their own issue; boxes keep their type-specific settings as given. */
export const flowDef = z
  .object({
    boxes: z
      .array(
        z
          .object({
            id: z.string().min(1).max(100),
            type: z.string().min(1).max(100),
            credentials: zIdent.optional(),
          })
          .loose(),
      )
      .max(1000),
    edges: z
      .array(z.object({ from: z.string(), to: z.string() }).strict())
      .max(5000)
      .optional(),
  })
  .loose();

export const TRIGGER_TYPES = [
  'flowTimer',
  'flowSequence',
  'flowSftpFilechange',
  'flowWebdavFilechange',
] as const;

/**
 * Why a cron expression cannot schedule a trigger, or null: five fields (minute hour
 * day-of-month month day-of-week), parsed by croner (the scheduler that runs it), and due at
 * least once in the future.
 */
export function cronProblem(cron: string, timezone?: string): string | null {
  if (cron.trim().split(/\s+/).length !== 5)
    return 'must be a five-field cron expression: minute hour day-of-month month day-of-week';
  try {
    const next = new Cron(cron.trim(), { mode: '5-part', timezone }).nextRun();
    return next ? null : 'never matches a future time';
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
}

export const triggerDef = z
  .object({
    type: z.enum(TRIGGER_TYPES),
    flow: zIdent,
    cron: z.string().max(1000).optional(),
    timezone: z
      .string()
      .max(100)
      .refine(validTimeZone, { error: 'must be an IANA time zone such as UTC or Europe/Prague' })
      .optional(),
    after: zIdent.optional(),
    path: z.string().min(1).max(4096).optional(),
    credentials: zIdent.optional(),
    enabled: z.boolean(),
  })
  .strict()
  .superRefine((t, ctx) => {
    const need = (field: 'cron' | 'after' | 'path' | 'credentials') => {
      if (t[field] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `a ${t.type} trigger needs "${field}"`,
        });
    };
    if (t.type === 'flowTimer') need('cron');
    // A flow after itself is a cycle: refused with the others (flows/triggers/sequence-cycles.ts).
    if (t.type === 'flowSequence') need('after');
    if (t.type === 'flowSftpFilechange') {
      need('path');
      need('credentials');
    }
    if (t.type === 'flowWebdavFilechange') {
      need('path');
      if (t.path !== undefined && !t.path.startsWith('/'))
        ctx.addIssue({
          code: 'custom',
          path: ['path'],
          message: 'a storage path glob starts with "/", such as /drop/*.csv',
        });
    }
    if (t.cron !== undefined) {
      const tz = t.timezone !== undefined && validTimeZone(t.timezone) ? t.timezone : undefined;
      const problem = cronProblem(t.cron, tz);
      if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: problem });
    }
  });

/**
 * An alert's comparison: with a value; `change%` against the previous evaluation, or with a
 * `period` against the same span of the previous period; `nodata` when the answer is empty.
 */
export const ALERT_OPS = ['>', '>=', '<', '<=', 'change%', 'nodata'] as const;

/** The periods a `change%` alert compares (DATE_TRUNC's units). */
export const ALERT_GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;

const alertCondition = z
  .object({
    op: z.enum(ALERT_OPS),
    value: z.number().finite().optional(),
    period: z
      .object({ date: z.string().min(1).max(1000), grain: z.enum(ALERT_GRAINS) })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.op !== 'nodata' && c.value === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `"${c.op}" compares with a value: give "value" (a number${c.op === 'change%' ? ', in percent' : ''})`,
      });
    if (c.period && c.op !== 'change%')
      ctx.addIssue({
        code: 'custom',
        path: ['period'],
        message: 'a period is what "change%" compares against; other conditions take none',
      });
  });

/** When an alert or subscription runs: five-field cron in an IANA time zone (UTC if left out). */
const deliverySchedule = z
  .object({
    cron: z.string().max(1000),
    timezone: z
      .string()
      .max(100)
      .refine(validTimeZone, { error: 'must be an IANA time zone such as UTC or Europe/Prague' })
      .optional(),
  })
  .strict();

/** A member's e-mail as delivery stores it (trimmed, lower case). */
const zRecipient = z.string().trim().toLowerCase().email().max(254);

const scheduleIssue = (
  schedule: { cron: string; timezone?: string } | undefined,
  ctx: z.RefinementCtx,
) => {
  if (!schedule) return;
  const tz = schedule.timezone;
  const problem = cronProblem(
    schedule.cron,
    tz !== undefined && validTimeZone(tz) ? tz : undefined,
  );
  if (problem) ctx.addIssue({ code: 'custom', path: ['schedule', 'cron'], message: problem });
};

/**
 * A data alert (docs/delivery.md): a metric, or one AQL measure, compared with a value on a
 * schedule and after loads; it tells members by e-mail (each evaluated with their own row
 * filter) or a webhook (evaluated as the alert's creator), once per firing.
 */
export const alertDef = z
  .object({
    metric: zIdent.optional(),
    aql: zAql.optional(),
    condition: alertCondition,
    schedule: deliverySchedule.optional(),
    afterLoads: z.boolean().optional(),
    email: z.array(zRecipient).max(100).optional(),
    webhook: z
      .object({ url: z.string().url().max(2000), secret: zIdent })
      .strict()
      .optional(),
    paused: z.boolean().optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    if ((a.metric === undefined) === (a.aql === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['metric'],
        message:
          'an alert watches a metric ("metric": "<metric ident>") or one measure ("aql"): one of the two',
      });
    if (!a.email?.length && !a.webhook)
      ctx.addIssue({
        code: 'custom',
        path: ['email'],
        message: 'an alert tells someone: members by "email", or a "webhook"',
      });
    if (a.webhook && !/^https?:/i.test(a.webhook.url))
      ctx.addIssue({
        code: 'custom',
        path: ['webhook', 'url'],
        message: 'must be an http or https URL',
      });
    scheduleIssue(a.schedule, ctx);
  });

export const SUBSCRIPTION_FORMATS = ['pdf', 'xlsx', 'csv'] as const;

/**
 * A dashboard subscription (docs/delivery.md): the dashboard mailed to members on a schedule,
 * each computed as that member (row filter, access), as an inline image with a PDF attached or
 * XLSX/CSV files of chosen items; `filters` fix the dashboard's filters (`attribute:value`, as
 * the dashboard's `filter` parameter), left out its defaults apply.
 */
export const subscriptionDef = z
  .object({
    dashboard: zIdent,
    recipients: z.array(zRecipient).max(500),
    schedule: deliverySchedule,
    format: z.enum(SUBSCRIPTION_FORMATS).default('pdf'),
    items: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
    filters: z.array(z.string().min(1).max(1000)).max(50).optional(),
    paused: z.boolean().optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    scheduleIssue(d.schedule, ctx);
    if (new Set(d.recipients).size !== d.recipients.length)
      ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'lists an e-mail twice' });
    if (d.items && d.format === 'pdf')
      ctx.addIssue({
        code: 'custom',
        path: ['items'],
        message:
          'items choose the XLSX or CSV files ("format": "xlsx" or "csv"); a PDF is the whole dashboard',
      });
  });

export const CREDENTIAL_KINDS = ['postgres', 'sftp', 'http'] as const;

/** http credentials: the secret is an API key sent in this header or query parameter. */
const apiKeyDef = z
  .discriminatedUnion('in', [
    z
      .object({
        in: z.literal('header'),
        name: z
          .string()
          .regex(HEADER_NAME, { error: 'must be a valid header name, such as X-Api-Key' })
          .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), {
            error: `must not be one of ${[...RESERVED_HEADERS].join(', ')}`,
          }),
      })
      .strict(),
    z.object({ in: z.literal('query'), name: z.string().min(1).max(200) }).strict(),
  ])
  .describe('{ in: "header" | "query", name }: where the key goes instead of Authorization');

/**
 * `secret` is write-only: stored encrypted (secrets.ts) and answered as `secretSet: true`.
 * `secretSet` is accepted (and ignored) so an object read with GET can be PUT back as is;
 * a PUT without `secret` keeps the stored one, unless it changes where the secret goes
 * (SECRET_ROUTE_FIELDS).
 */
export const credentialsDef = z
  .object({
    kind: z.enum(CREDENTIAL_KINDS),
    host: z.string().min(1).max(255).optional(),
    port: zInt.min(1).max(65535).optional(),
    user: z.string().max(255).optional(),
    database: z.string().max(255).optional(),
    /** SFTP: the server's host key fingerprint (`ssh-keygen -lf`); only that server is used. */
    hostKey: z
      .string()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, {
        error: 'must be an SHA256 fingerprint as ssh-keygen -lf prints it: SHA256:<43 characters>',
      })
      .optional(),
    apiKey: apiKeyDef.optional(),
    /** postgres: read replicas (host:port) queries of a warehouse project go to in turn. */
    replicas: z
      .array(
        z.string().regex(/^[A-Za-z0-9.-]{1,253}:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, {
          error: 'must be host:port, such as replica1.internal:5432',
        }),
      )
      .max(16)
      .optional(),
    /** postgres: TLS to the server (verify-full checks its certificate and name). */
    sslmode: z.enum(['disable', 'require', 'verify-full']).optional(),
    secret: z.string().min(1).max(10_000).optional(),
    secretSet: z.boolean().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.apiKey && c.kind !== 'http')
      ctx.addIssue({ code: 'custom', path: ['apiKey'], message: 'only credentials of kind http' });
    for (const f of ['replicas', 'sslmode'] as const)
      if (c[f] !== undefined && c.kind !== 'postgres')
        ctx.addIssue({ code: 'custom', path: [f], message: 'only credentials of kind postgres' });
  });

/**
 * The fields that say where a credentials object's secret goes, or how: to which server
 * (`host`, `port`, the pinned `hostKey`, the `replicas`), as whom (`user`), through which connector (`kind`),
 * in which header or query parameter (`apiKey`). A change to any of them drops the stored
 * secret: the write must send it again. `database` is not among them: another database of
 * the same server is reached with the same login.
 */
export const SECRET_ROUTE_FIELDS = [
  'kind',
  'host',
  'port',
  'user',
  'hostKey',
  'apiKey',
  'replicas',
] as const;

/** The route fields whose values differ between two credentials defs. */
export function secretRouteChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  return SECRET_ROUTE_FIELDS.filter((f) => !sameJson(before[f] ?? null, after[f] ?? null));
}

export const DEF_SCHEMAS: Record<ObjectType, z.ZodType> = {
  attribute: attributeDef,
  label: labelDef,
  fact: factDef,
  metric: metricDef,
  filter: filterDef,
  report: reportDef,
  dashboard: dashboardDef,
  folder: folderDef,
  userrole: userroleDef,
  flow: flowDef,
  trigger: triggerDef,
  credentials: credentialsDef,
  alert: alertDef,
  subscription: subscriptionDef,
};

/** Types whose def holds AQL, and the kind `checkCompiles` compiles it as. */
export const AQL_KIND: Partial<Record<ObjectType, 'metric' | 'filter' | 'report'>> = {
  metric: 'metric',
  filter: 'filter',
  report: 'report',
  // An alert's `aql` (when it has one, not a metric) is one measure, as a metric's.
  alert: 'metric',
};

// ---- the object around the def ----

export const ACL_RE = /^[r-][w-][d-][s-][a-]$/;
export const aclEntry = z
  .object({
    userrole: z.string().min(1).max(200),
    acl: z.string().regex(ACL_RE, {
      error: 'must be five positions "rwdsa" (read, write, delete, share, administer), "-" denies',
    }),
  })
  .strict() satisfies z.ZodType<AclEntry>;
export type { AclEntry };

const zTags = z.array(z.string().trim().min(1).max(100)).max(100);

/** Fields an object carries on input; `tags` is accepted as another name for `tag`. */
export const objectInput = z
  .object({
    ident: zIdent.optional(),
    type: z.enum(OBJECT_TYPES),
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).optional(),
    def: z.record(z.string(), z.unknown()),
    acl: z.array(aclEntry).max(1000).optional(),
    tag: zTags.optional(),
    tags: zTags.optional(),
  })
  .strict();
export type ObjectInputBody = z.infer<typeof objectInput>;

/** A PUT replaces an object: same fields, but `type` and `ident` may be left out. */
export const objectReplace = objectInput.extend({
  type: z.enum(OBJECT_TYPES).optional(),
  def: z.record(z.string(), z.unknown()).optional(),
});

/** Fields GET answers that a client may send back unchanged; they are not input. */
export const READ_ONLY_FIELDS = [
  'revision',
  'created',
  'createdBy',
  'updated',
  'updatedBy',
  'link',
] as const;
