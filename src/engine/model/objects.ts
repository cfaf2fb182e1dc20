// The semantic model service (pmd/obj and friends). Every method takes the caller's
// ProjectActor and enforces levels, ACLs and visibility itself: an object the caller cannot
// read does not exist for them, on every path (lists, get, search, bulk, graphs, folders'
// content, predecessors and successors). Writes are one transaction each, keep a revision,
// bump the model version (ModelStore) and record an obj_action event.
import { sameJson } from '../same-json.js';
import type { z } from 'zod';
import { hasLevel, requireLevel, type ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import type { Datasets } from '../data/datasets.js';
import { tx, type Db } from '../db/index.js';
import { modelLock } from '../db/lock-names.js';
import { conflict, EngineError, forbidden, invalid, notFound } from '../errors.js';
import { checkFlowDef } from '../flows/flow-def.js';
import { redactFlowDef } from '../flows/redact.js';
import { describeCycle, sequenceCycle } from '../flows/triggers/sequence-cycles.js';
import { pagingSchema, parseInput } from '../validate.js';
import { parseRoleAcl, withRoleAcl } from './acl-batch.js';
import { checkModel, checkObjects, type Problem } from './checks.js';
import {
  AQL_KIND,
  DEF_SCHEMAS,
  LOAD_TYPES,
  OBJECT_TYPES,
  READ_ONLY_FIELDS,
  TITLED_TYPES,
  isObjectType,
  titleKey,
  objectInput,
  objectReplace,
  secretRouteChanges,
  type AclEntry,
  type ObjectType,
} from './defs.js';
import { ModelIndex, type Ref } from './dependencies.js';
import { refModel } from '../aql/ref-rewrite.js';
import { showDef, storeDef } from './saved-aql.js';
import { ldmGraph, odmGraph, type LdmGraph, type OdmGraph } from './graphs.js';
import { ModelScope } from './scope.js';
import { parseSearchFields, searchRows, type MatchKind, type SearchField } from './search.js';
import type { SecretBox } from './secrets.js';
import type { ModelStore, ObjectInput, ObjectRow } from './store.js';
import type { RowFilterGuard } from '../users/row-filter-guard.js';

/** Compiles AQL as the given kind for the actor; null when it compiles, else the error. */
export type CompileCheck = (
  actor: ProjectActor,
  aql: string,
  kind: 'metric' | 'filter' | 'report',
) => Promise<string | null>;

export const MAX_BATCH = 1000;
/**
 * Identifiers the loads own: an API object there would be overwritten by the next load, and
 * `dataset.<name>` names a loaded dataset in AQL (COUNT([dataset.flights])).
 */
const RESERVED_PREFIXES = ['attr.', 'label.', 'fact.', 'dataset.'];

export interface ObjectView {
  ident: string;
  type: string;
  name: string;
  description: string;
  def: Record<string, unknown>;
  acl: AclEntry[];
  tag: string[];
  revision: number;
  created: string;
  createdBy: string;
  updated: string;
  updatedBy: string;
}
export const VIEW_KEYS = [
  'ident',
  'type',
  'name',
  'description',
  'def',
  'acl',
  'tag',
  'revision',
  'created',
  'createdBy',
  'updated',
  'updatedBy',
] as const;

export interface ObjectSummary {
  ident: string;
  type: string;
  name: string;
}

export interface ObjectDetails {
  object: ObjectView;
  predecessors?: ObjectSummary[];
  successors?: ObjectSummary[];
  history?: RevisionInfo[];
}

export interface RevisionInfo {
  revision: number;
  time: string;
  user: string;
}

export interface SearchResult extends ObjectSummary {
  description: string;
  field: SearchField;
  match: MatchKind;
}

const summary = (r: ObjectRow): ObjectSummary => ({ ident: r.ident, type: r.type, name: r.name });
const isLoadType = (t: string) => (LOAD_TYPES as readonly string[]).includes(t);

export class ModelObjects {
  private compileCheck: CompileCheck | null = null;
  private rowFilterGuard: RowFilterGuard | null = null;
  /** Writes started (see change()); the process is single-threaded, so a counter suffices. */
  private writes = 0;

  constructor(
    private readonly db: Db,
    private readonly store: ModelStore,
    private readonly datasets: Datasets,
    private readonly activity: ActivityLog,
    private readonly secrets: SecretBox,
  ) {}

  /** The AQL compiler plugs in here; until then AQL is checked for unknown references only. */
  setCompileCheck(check: CompileCheck | null): void {
    this.compileCheck = check;
  }

  private limitCheck: ((projectId: string, name: 'flows', extra: number) => Promise<void>) | null =
    null;

  /** Plan limits on objects (flows): a create beyond the limit is refused with 402. */
  setLimitCheck(check: (projectId: string, name: 'flows', extra: number) => Promise<void>): void {
    this.limitCheck = check;
  }

  /** Model writes that change what a member's row-level filter selects need a User Admin. */
  setRowFilterGuard(guard: RowFilterGuard | null): void {
    this.rowFilterGuard = guard;
  }

  /** The actor's view of the model; other engine areas (AQL, sharing) read through it too. */
  async scope(actor: ProjectActor): Promise<ModelScope> {
    if (this.store.inTransaction())
      return new ModelScope(actor, await this.store.all(actor.projectId));
    // Every read of the model starts here: its objects and their index are read again only
    // when the model version changed (read first, so rows are never older than their version).
    const { modelVersion } = await this.store.versions(actor.projectId);
    const hit = this.indexes.get(actor.projectId);
    if (hit?.version === modelVersion) return new ModelScope(actor, hit.index);
    const index = new ModelIndex(await this.store.all(actor.projectId));
    this.indexes.set(actor.projectId, { version: modelVersion, index });
    return new ModelScope(actor, index);
  }

  private readonly indexes = new Map<string, { version: number; index: ModelIndex }>();

  /** The secret of a credentials object, for engine code that connects (never for output). */
  async secretOf(actor: ProjectActor, ident: string): Promise<string | null> {
    requireLevel(actor, 'mdadmin');
    const row = (await this.scope(actor)).get(ident);
    const sealed = row?.type === 'credentials' ? row.def.secretEnc : undefined;
    return typeof sealed === 'string' ? this.secrets.decrypt(sealed, bound(row!)) : null;
  }

  // ---- reading ----

  async list(
    actor: ProjectActor,
    q: { rel?: unknown; query?: unknown; limit?: unknown; offset?: unknown },
  ): Promise<{ items: ObjectView[]; total: number; limit: number; offset: number }> {
    const page = parseInput(pagingSchema, { limit: q.limit, offset: q.offset }, 'paging');
    const types = parseRel(q.rel);
    const text = typeof q.query === 'string' ? q.query.trim().toLowerCase() : '';
    const s = await this.scope(actor);
    const rows = s
      .rows()
      .filter((r) => !types || types.includes(r.type as ObjectType))
      .filter(
        (r) =>
          !text ||
          [r.ident, r.name, r.description, ...r.tags].some((v) => v.toLowerCase().includes(text)),
      );
    return {
      items: rows.slice(page.offset, page.offset + page.limit).map((r) => this.view(r, s)),
      total: rows.length,
      ...page,
    };
  }

  async get(
    actor: ProjectActor,
    ident: string,
    opts: { predecessors?: boolean; successors?: boolean; history?: boolean } = {},
  ): Promise<ObjectDetails> {
    const s = await this.scope(actor);
    const row = this.mustSee(s, ident);
    const out: ObjectDetails = { object: this.view(row, s) };
    if (opts.predecessors)
      out.predecessors = s.index.predecessors(row).filter(s.visible).map(summary);
    if (opts.successors)
      out.successors = s.index.successors(row.ident).filter(s.visible).map(summary);
    if (opts.history) out.history = await this.revisionInfos(row);
    return out;
  }

  async history(actor: ProjectActor, ident: string): Promise<RevisionInfo[]> {
    return this.revisionInfos(this.mustSee(await this.scope(actor), ident));
  }

  /** The object as it was at `revision` (visible while the object is visible now). */
  async revision(actor: ProjectActor, ident: string, revision: string): Promise<ObjectView> {
    const s = await this.scope(actor);
    const row = this.mustSee(s, ident);
    const n = Number(revision);
    if (!Number.isInteger(n) || n < 1)
      throw invalid(`revision must be a whole number ≥ 1, got "${revision}"`, {
        field: 'revision',
        value: revision,
      });
    const rev = await this.store.revisionAt(actor.projectId, ident, n);
    if (!rev)
      throw notFound(`object "${ident}" has no revision ${n} (latest: ${row.revision})`, {
        ident,
        revision: n,
        latest: row.revision,
      });
    const snap = rev.snapshot as Partial<ObjectRow>;
    return this.view(
      {
        ...row,
        ...snap,
        acl: snap.acl ?? [],
        tags: snap.tags ?? [],
        revision: n,
        updated: String(snap.updated ?? rev.time),
        updatedBy: String(snap.updatedBy ?? rev.user),
      } as ObjectRow,
      s,
    );
  }

  /** The project's data and model versions (counters of changes; every member reads them). */
  versions(actor: ProjectActor): Promise<{ dataVersion: number; modelVersion: number }> {
    return this.store.versions(actor.projectId);
  }

  async bulk(actor: ProjectActor, q: { idents?: unknown; keys?: unknown }) {
    const idents = commaList(q.idents, 'idents');
    if (!idents.length)
      throw invalid('idents is required: a comma list of object identifiers', {
        field: 'idents',
      });
    if (idents.length > MAX_BATCH)
      throw invalid(`at most ${MAX_BATCH} idents per call, got ${idents.length}`, {
        field: 'idents',
        count: idents.length,
      });
    const keys = commaList(q.keys, 'keys');
    const unknown = keys.filter((k) => !(VIEW_KEYS as readonly string[]).includes(k));
    if (unknown.length)
      throw invalid(
        `unknown key ${unknown.map((k) => `"${k}"`).join(', ')}; allowed: ${VIEW_KEYS.join(', ')}`,
        { field: 'keys', invalid: unknown, allowed: [...VIEW_KEYS] },
      );
    const s = await this.scope(actor);
    const objects: Array<{ object: ObjectSummary; fields: Partial<ObjectView> }> = [];
    const missing: string[] = [];
    for (const ident of new Set(idents)) {
      const row = s.get(ident);
      if (!row) {
        missing.push(ident); // unknown and unreadable look the same
        continue;
      }
      const v = this.view(row, s);
      objects.push({ object: summary(row), fields: keys.length ? pick(v, keys) : v });
    }
    return { objects, missing };
  }

  async search(
    actor: ProjectActor,
    q: { query?: unknown; params?: unknown; limit?: unknown },
  ): Promise<{ hits: SearchResult[]; total: number }> {
    const text = typeof q.query === 'string' ? q.query.trim() : '';
    if (!text) throw invalid('query is required: the text to search for', { field: 'query' });
    const fields = parseSearchFields(typeof q.params === 'string' ? q.params : undefined);
    const { limit } = parseInput(pagingSchema, { limit: q.limit ?? 50 }, 'paging');
    const hits = searchRows((await this.scope(actor)).rows(), text, fields);
    return {
      total: hits.length,
      hits: hits.slice(0, limit).map((h) => ({
        ...summary(h.row),
        description: h.row.description,
        field: h.field,
        match: h.match,
      })),
    };
  }

  async ldm(actor: ProjectActor): Promise<LdmGraph> {
    const s = await this.scope(actor);
    const ds = [];
    for (const d of await this.datasets.infos(actor.projectId))
      ds.push({
        ...d,
        prescription: (await this.datasets.prescriptionOf(actor.projectId, d.name))!,
      });
    return ldmGraph(s, ds);
  }

  async odm(actor: ProjectActor): Promise<OdmGraph> {
    return odmGraph(await this.scope(actor));
  }

  /** Model consistency (MD Admin: it is about the whole model, datasets included). */
  async checkModel(actor: ProjectActor): Promise<Problem[]> {
    requireLevel(actor, 'mdadmin');
    return checkModel(await this.scope(actor), await this.datasets.infos(actor.projectId));
  }

  async checkObjects(actor: ProjectActor): Promise<Problem[]> {
    requireLevel(actor, 'mdadmin');
    return checkObjects(await this.scope(actor), this.compileCheck);
  }

  // ---- writing ----

  async create(actor: ProjectActor, body: unknown): Promise<ObjectView[]> {
    requireLevel(actor, 'mdadmin');
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (!items.length) throw invalid('the array of objects is empty', { count: 0 });
    if (items.length > MAX_BATCH)
      throw invalid(
        `at most ${MAX_BATCH} objects per create call, got ${items.length}; split the array`,
        { count: items.length, limit: MAX_BATCH },
      );
    const parsed = items.map((raw, i) => parseNew(raw, batch ? i : undefined));
    const flows = parsed.filter((p) => p.type === 'flow').length;

    return this.change(actor, async () => {
      // Under the model's lock, so concurrent creates in other processes count too.
      if (flows) await this.limitCheck?.(actor.projectId, 'flows', flows);
      const before = await this.scope(actor);
      const taken = new Set(before.index.byIdent.keys());
      const titles = titleOwners(before.index.rows);
      const inputs: ObjectInput[] = [];
      parsed.forEach((p, i) => {
        const at = batch ? i : undefined;
        if (p.type === 'userrole') checkMembership(actor, [], p.def.members, at);
        let ident = p.ident;
        if (ident !== undefined) {
          checkReserved(ident, at);
          if (taken.has(ident))
            throw conflict(
              `object "${ident}" already exists${at !== undefined ? ` (item ${at})` : ''}`,
              {
                ident,
                ...(at !== undefined ? { index: at } : {}),
              },
            );
        } else {
          ident = generateIdent(p.type, p.name, taken);
        }
        taken.add(ident);
        claimTitle(titles, { ident, type: p.type, name: p.name }, at);
        inputs.push({
          ident,
          type: p.type,
          name: p.name,
          description: p.description ?? '',
          def: this.sealDef(actor, ident, p.type, p.def, undefined, at),
          acl: p.acl ?? [],
          tags: p.tag ?? p.tags ?? [],
        });
      });
      // AQL references become identifiers; the batch's own titles count (they may name each other).
      const names = refModel([...before.index.rows, ...inputs]);
      const written = new Map<string, unknown>();
      for (const o of inputs) {
        written.set(o.ident, o.def.aql);
        o.def = storeDef(o.type, o.def, names);
      }
      this.writes++;
      await this.store.upsert(actor.projectId, inputs, actor.email);
      // Checked once all are in: objects of one batch may depend on each other.
      const after = await this.scope(actor);
      for (const [i, o] of inputs.entries())
        await this.checkRefs(
          after,
          after.index.byIdent.get(o.ident)!,
          batch ? i : undefined,
          written.get(o.ident),
        );
      for (const o of inputs) await this.record(actor, 'create', after.index.byIdent.get(o.ident)!);
      return inputs.map((o) => this.view(after.index.byIdent.get(o.ident)!, after));
    });
  }

  replace(actor: ProjectActor, ident: string, body: unknown): Promise<ObjectView> {
    requireLevel(actor, 'mdadmin');
    return this.write(actor, ident, parseReplace(body), true);
  }

  /**
   * Replaces an object. `checkAll` checks every reference of the new def; a folder change
   * by modifyfolder checks only what it adds, so a folder holding a column that a reload
   * dropped can still be tidied.
   */
  private write(
    actor: ProjectActor,
    ident: string,
    p: ReturnType<typeof parseReplace>,
    checkAll: boolean,
  ): Promise<ObjectView> {
    return this.change(actor, async () => {
      const s = await this.scope(actor);
      const row = this.mustSee(s, ident);
      if (p.ident !== undefined && p.ident !== ident)
        throw invalid(`the identifier cannot change ("${ident}" → "${p.ident}")`, {
          field: 'ident',
          value: p.ident,
        });
      if (p.type !== undefined && p.type !== row.type)
        throw invalid(
          `the type cannot change ("${row.type}" → "${p.type}"); create a new object instead`,
          { field: 'type', value: p.type, type: row.type },
        );
      if (!s.allows(row, 'w'))
        throw forbidden(`you may not change object "${ident}"`, { ident, needs: 'w' });
      if (p.acl !== undefined && !sameJson(p.acl, row.acl) && !s.allows(row, 'a'))
        throw forbidden(`changing the acl of "${ident}" needs the "a" position`, {
          ident,
          needs: 'a',
        });
      let def: Record<string, unknown>;
      if (isLoadType(row.type)) {
        if (p.def !== undefined && !sameJson(p.def, row.def))
          throw invalid(
            `the def of a ${row.type} is created by data loads and cannot be changed here; change the dataset's prescription and reload (name, description, tag and acl may change)`,
            { field: 'def', type: row.type },
          );
        def = row.def;
      } else {
        if (p.def === undefined)
          throw invalid('def is required: PUT replaces the whole object', { field: 'def' });
        def = this.sealDef(actor, ident, row.type as ObjectType, p.def, row.def, undefined);
      }
      if (row.type === 'userrole') checkMembership(actor, row.def.members, def.members, undefined);
      if (titleKey(p.name) !== titleKey(row.name))
        claimTitle(
          titleOwners(s.index.rows.filter((r) => r.ident !== ident)),
          { ident, type: row.type, name: p.name },
          undefined,
        );
      // AQL references become identifiers, under the object's new title. The same text as
      // stored (a GET sent back) keeps what was written by title, also where an identifier
      // is shown because the title would not name the object again.
      const written = def.aql;
      def = storeDef(
        row.type,
        def,
        refModel(s.index.rows.map((r) => (r.ident === ident ? { ...r, name: p.name } : r))),
        row.def,
      );
      this.writes++;
      const changed = await this.store.upsert(
        actor.projectId,
        [
          {
            ident,
            type: row.type,
            name: p.name,
            description: p.description ?? '',
            def,
            acl: p.acl ?? row.acl,
            tags: p.tag ?? p.tags ?? [],
          },
        ],
        actor.email,
      );
      const after = await this.scope(actor);
      const updated = after.index.byIdent.get(ident)!;
      if (changed) {
        if (checkAll) await this.checkRefs(after, updated, undefined, written);
        await this.record(actor, 'update', updated);
      }
      return this.view(updated, after);
    });
  }

  async remove(actor: ProjectActor, ident: string): Promise<void> {
    requireLevel(actor, 'mdadmin');
    await this.change(actor, async () => {
      const s = await this.scope(actor);
      const row = this.mustSee(s, ident);
      // Deleting a role takes it from its members: user administration, but not a self-change.
      if (row.type === 'userrole')
        checkMembership(actor, row.def.members, undefined, undefined, false);
      if (isLoadType(row.type))
        throw invalid(
          `${row.type} "${ident}" was created by a data load; delete the dataset's column by reloading`,
          { ident, type: row.type },
        );
      if (!s.allows(row, 'd'))
        throw forbidden(`you may not delete object "${ident}"`, { ident, needs: 'd' });
      const dependents = s.index.successors(ident);
      if (dependents.length) {
        const shown = dependents.filter(s.visible).map(summary);
        throw conflict(
          `object "${ident}" is used by ${dependents.length} other object(s): ${shown
            .map((d) => `${d.type} "${d.ident}"`)
            .join(', ')}; change or delete them first`,
          { ident, dependents: shown },
        );
      }
      this.writes++;
      await this.store.remove(actor.projectId, [ident]);
      await this.record(actor, 'delete', row);
    });
  }

  /**
   * Batch access (SHARING.md): one role's access string on many objects, all or nothing. Any
   * member may call; each object must exist for them (404 naming the first that does not) and
   * they need `a` on each (403 naming every one without). An object whose ACL this changes
   * gets a revision and an obj_action event; one already so is left alone.
   */
  setRoleAcl(
    actor: ProjectActor,
    body: unknown,
  ): Promise<Array<ObjectSummary & { acl: AclEntry[] }>> {
    const input = parseRoleAcl(body);
    return this.change(actor, async () => {
      const s = await this.scope(actor);
      const rows = input.objects.map((ident) => this.mustSee(s, ident));
      const denied = rows.filter((r) => !s.allows(r, 'a')).map((r) => r.ident);
      if (denied.length)
        throw forbidden(
          `changing the acl needs the "a" position, which you do not hold on ${denied.map((d) => `"${d}"`).join(', ')}; nothing was changed`,
          { needs: 'a', idents: denied },
        );
      const next = rows.map((row) => ({
        row,
        acl: withRoleAcl(row.acl, input.userrole, input.acl),
      }));
      const changed = next.filter((n) => !sameJson(n.acl, n.row.acl));
      if (changed.length) {
        this.writes++;
        await this.store.upsert(
          actor.projectId,
          changed.map(({ row, acl }) => ({
            ident: row.ident,
            type: row.type,
            name: row.name,
            description: row.description,
            def: row.def,
            tags: row.tags,
            acl,
          })),
          actor.email,
        );
        const after = await this.scope(actor);
        for (const { row } of changed)
          await this.record(actor, 'update', after.index.byIdent.get(row.ident)!, {
            userrole: input.userrole,
            acl: input.acl,
          });
      }
      return next.map(({ row, acl }) => ({ ...summary(row), acl }));
    });
  }

  async modifyFolder(actor: ProjectActor, body: unknown): Promise<ObjectView> {
    requireLevel(actor, 'mdadmin');
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const OPS = ['add', 'remove'];
    if (!OPS.includes(b.op as string))
      throw invalid(`op must be one of ${OPS.map((o) => `"${o}"`).join(', ')}`, {
        field: 'op',
        value: b.op ?? null,
        allowed: OPS,
      });
    const ident = typeof b.ident === 'string' ? b.ident : '';
    if (!ident) throw invalid('ident is required: the folder to change', { field: 'ident' });
    const content = b.content;
    if (!Array.isArray(content) || content.some((c) => typeof c !== 'string'))
      throw invalid('content must be an array of object identifiers', { field: 'content' });
    const s = await this.scope(actor);
    const folder = this.mustSee(s, ident);
    if (folder.type !== 'folder')
      throw invalid(`"${ident}" is a ${folder.type}, not a folder`, { ident, type: folder.type });
    const current = ((folder.def.content as string[] | undefined) ?? []).slice();
    let next: string[];
    if (b.op === 'add') {
      const unknown = (content as string[]).filter((c) => !s.get(c));
      if (unknown.length)
        throw invalid(`no such object: ${unknown.map((u) => `"${u}"`).join(', ')}`, {
          field: 'content',
          unknown,
        });
      next = [...current, ...(content as string[]).filter((c) => !current.includes(c))];
      next = [...new Set(next)];
    } else {
      next = current.filter((c) => !(content as string[]).includes(c));
    }
    return this.write(
      actor,
      ident,
      parseReplace({
        name: folder.name,
        description: folder.description,
        def: { content: next },
        tag: folder.tags,
      }),
      false,
    );
  }

  // ---- helpers ----

  /**
   * One write, one transaction. A write that fails may have bumped the model version inside
   * the transaction, and a cache keyed by the version (compiled AQL) may have been filled
   * from the state that was rolled back: one more bump afterwards keeps versions unique.
   */
  private async change<T>(actor: ProjectActor, fn: () => Promise<T>): Promise<T> {
    const { projectId } = actor;
    const before = this.writes;
    const guard = this.rowFilterGuard;
    try {
      // Under the project's model lock: idents, titles and the flow count are checked by
      // reading the model, and a write in another process must not slip in between.
      return await tx(
        this.db,
        async () => {
          const filters = (await guard?.before(actor)) ?? null;
          const out = await fn();
          await guard?.assertKept(actor, filters);
          return out;
        },
        { lock: [modelLock(projectId)] },
      );
    } catch (err) {
      // Refusals before any write (404, 409…) leave the version, and the caches, alone.
      if (this.writes !== before) await this.store.bumpModelVersion(projectId);
      throw err;
    }
  }

  private mustSee(s: ModelScope, ident: string): ObjectRow {
    const row = s.get(ident);
    if (!row)
      throw notFound(`object "${ident}" not found in project "${s.actor.projectId}"`, { ident });
    return row;
  }

  private async revisionInfos(row: ObjectRow): Promise<RevisionInfo[]> {
    return (await this.store.revisions(row.projectId, row.ident)).map((r) => ({
      revision: r.revision,
      time: r.time,
      user: r.user,
    }));
  }

  /** The stored def: validated by its type's schema; a credentials secret sealed. */
  private sealDef(
    actor: ProjectActor,
    ident: string,
    type: ObjectType,
    raw: Record<string, unknown>,
    previous: Record<string, unknown> | undefined,
    at: number | undefined,
  ): Record<string, unknown> {
    const def = parseAt(
      DEF_SCHEMAS[type],
      raw,
      [...(at !== undefined ? [at] : []), 'def'],
      at,
    ) as Record<string, unknown>;
    if (type !== 'credentials') return def;
    const { secret, secretSet: _ignored, ...rest } = def;
    if (typeof secret === 'string')
      return {
        ...rest,
        secretEnc: this.secrets.encrypt(secret, bound({ projectId: actor.projectId, ident })),
      };
    // A stored secret goes only where it was set for: a write that points it elsewhere (another
    // host, port, user, kind…) must send it again, so it cannot be sent to a server of one's own.
    const moved = previous ? secretRouteChanges(previous, rest) : [];
    if (typeof previous?.secretEnc === 'string' && !moved.length)
      return { ...rest, secretEnc: previous.secretEnc };
    throw invalid(
      moved.length
        ? `${where(at)}def.secret: required: the change of ${moved.join(', ')} changes where the secret goes, and a stored secret goes only where it was set for; send it again`
        : `${where(at)}def.secret: required (it is stored encrypted, never returned)`,
      {
        field: 'def.secret',
        ...(moved.length ? { changed: moved } : {}),
        ...(at !== undefined ? { index: at } : {}),
      },
    );
  }

  /** What the def names must exist, be readable and be of the right type; AQL must compile. */
  private async checkRefs(
    s: ModelScope,
    row: ObjectRow,
    at: number | undefined,
    /** def.aql as the caller wrote it: compile errors point into their text, not the stored one. */
    written?: unknown,
  ): Promise<void> {
    const fail = (field: string, message: string, extra: Record<string, unknown> = {}) => {
      throw invalid(`invalid object: ${where(at)}${field}: ${message}`, {
        ident: row.ident,
        field,
        ...(at !== undefined ? { index: at } : {}),
        ...extra,
      });
    };
    const need = (ref: Ref, types: readonly string[] | null) => {
      const targets = s.index.resolve(ref).filter(s.visible);
      if (!targets.length)
        fail(ref.field, `no such object ${ref.aql ? `[${ref.text}]` : `"${ref.text}"`}`, {
          reference: ref.text,
        });
      if (types && !types.includes(targets[0]!.type))
        fail(ref.field, `"${ref.text}" is a ${targets[0]!.type}; expected ${types.join(' or ')}`, {
          reference: ref.text,
          expected: types,
        });
    };
    const def = row.def;
    const kind = AQL_KIND[row.type as ObjectType];
    const compile = async (aql: unknown, k: 'metric' | 'filter' | 'report', field: string) => {
      const err = await this.compileCheck?.(s.actor, String(aql), k);
      if (err) fail(field, err);
    };
    const refs = s.index.refs(row);
    const aqlRefs = refs.filter((r) => r.aql && !r.dataset);
    // The compiler reports unknown references itself, with suggestions; without it, we do.
    if (!this.compileCheck) for (const r of aqlRefs) need(r, null);
    if (kind) await compile(written ?? def.aql, kind, 'def.aql');
    switch (row.type) {
      case 'dashboard': {
        const items = def.items as Array<{ id: string }>;
        const ids = new Set<string>();
        items.forEach((it, i) => {
          if (ids.has(it.id)) fail(`def.items.${i}.id`, `duplicate item id "${it.id}"`);
          ids.add(it.id);
        });
        (def.layout as Array<{ item: string }>).forEach((l, i) => {
          if (!ids.has(l.item)) fail(`def.layout.${i}.item`, `no item with id "${l.item}"`);
        });
        for (const r of refs) {
          if (r.field.endsWith('.report')) need(r, ['report']);
          if (r.field.endsWith('.attribute')) need(r, ['attribute', 'label']);
        }
        for (const [i, f] of (def.filters as Array<{ aql?: string }>).entries())
          if (f.aql !== undefined) await compile(f.aql, 'filter', `def.filters.${i}.aql`);
        break;
      }
      case 'folder':
        for (const r of refs) {
          if (r.text === row.ident) fail(r.field, 'a folder cannot contain itself');
          need(r, null);
        }
        break;
      case 'trigger': {
        for (const r of refs) need(r, r.field === 'def.credentials' ? ['credentials'] : ['flow']);
        const cycle = sequenceCycle(s.index.rows, def);
        if (cycle) {
          const shown = describeCycle(cycle, (f) => !!s.get(f));
          fail('def.after', shown.message, { cycle: shown.cycle });
        }
        break;
      }
      case 'flow': {
        for (const r of refs) need(r, ['credentials']);
        // The whole graph: box types and parameters, edges, cycles, inputs, expressions.
        try {
          checkFlowDef(def, (id) => {
            const c = s.index.byIdent.get(id);
            return c && s.visible(c) && c.type === 'credentials' ? c.def : null;
          });
        } catch (err) {
          if (err instanceof EngineError)
            fail(String(err.context.field ?? 'def'), err.message.replace(/^def\.[^:]*: /, ''), {
              ...err.context,
            });
          throw err;
        }
        break;
      }
    }
  }

  private async record(
    actor: ProjectActor,
    action: string,
    row: ObjectRow,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const verb = { create: 'created', update: 'changed', delete: 'deleted' }[action] ?? action;
    await this.activity.record(actor.projectId, 'obj_action', {
      user: actor.email,
      object: row.ident,
      message: `${verb} ${row.type} "${row.name}" (${row.ident})`,
      detail: { action, ident: row.ident, type: row.type, revision: row.revision, ...extra },
    });
  }

  /** The object as the API shows it to the actor of `s`. */
  view(row: ObjectRow, s: ModelScope): ObjectView {
    return {
      ident: row.ident,
      type: row.type,
      name: row.name,
      description: row.description,
      def: showDef(row.type, publicDef(row, s), s.index.names),
      acl: row.acl,
      tag: row.tags,
      revision: row.revision,
      created: row.created,
      createdBy: row.createdBy,
      updated: row.updated,
      updatedBy: row.updatedBy,
    };
  }
}

/**
 * A def as shown: no secret, no identifiers of objects the reader cannot see, and below MD
 * Admin no value of a flow that may carry a secret (redact.ts) and only a credentials
 * object's kind. Every way a def is read
 * (pmd/obj in each format, revisions, flowlist, MCP) goes through here.
 */
function publicDef(row: ObjectRow, s: ModelScope): Record<string, unknown> {
  const def = row.def;
  switch (row.type) {
    case 'credentials': {
      // Where a login goes (server, replicas, user, database, key) is MD Admin's to know;
      // other members see only the kind a box may name. The secret is never shown.
      const { secretEnc, ...rest } = def;
      const shown = hasLevel(s.actor, 'mdadmin') ? rest : { kind: rest.kind };
      return { ...shown, secretSet: typeof secretEnc === 'string' };
    }
    case 'flow':
      return hasLevel(s.actor, 'mdadmin') ? def : redactFlowDef(def);
    case 'folder':
      return {
        ...def,
        content: ((def.content as string[] | undefined) ?? []).filter((c) => seen(s, c)),
      };
    case 'dashboard': {
      // A text item names nothing: everyone who reads the dashboard sees it.
      const items = (
        (def.items as Array<{ id: string; report?: string }> | undefined) ?? []
      ).filter((it) => it.report === undefined || seen(s, it.report));
      const ids = new Set(items.map((it) => it.id));
      return {
        ...def,
        items,
        layout: ((def.layout as Array<{ item: string }> | undefined) ?? []).filter((l) =>
          ids.has(l.item),
        ),
      };
    }
    default:
      return def;
  }
}

/** Who holds each title AQL resolves (`titleKey` → the object). */
type TitleOwners = Map<string, { ident: string; type: string; name: string }>;

function titleOwners(rows: ObjectRow[]): TitleOwners {
  const out: TitleOwners = new Map();
  for (const r of rows) {
    const key = ownedTitle(r);
    if (key) out.set(key, r);
  }
  return out;
}

/**
 * The title an object holds alone: AQL's titles among themselves; a report's among reports
 * (people open, add and share reports by their title, so two alike cannot be told apart).
 */
const ownedTitle = (o: { type: string; name: string }): string | null =>
  TITLED_TYPES.includes(o.type)
    ? titleKey(o.name)
    : o.type === 'report'
      ? `report\u0000${titleKey(o.name)}`
      : null;

/**
 * AQL names objects by title in any case (`[Revenue]`): a second object with a title taken
 * would make every saved definition using it ambiguous, so it is refused (409).
 */
function claimTitle(
  owners: TitleOwners,
  o: { ident: string; type: string; name: string },
  at: number | undefined,
): void {
  const key = ownedTitle(o);
  if (!key) return;
  const owner = owners.get(key);
  if (owner && owner.ident !== o.ident && o.type === 'report')
    throw conflict(
      `${where(at)}the title "${o.name}" is taken by report "${owner.ident}": report titles are unique, in any case; choose another`,
      {
        field: 'name',
        title: o.name,
        taken: { ident: owner.ident, type: owner.type, name: owner.name },
        ...(at !== undefined ? { index: at } : {}),
      },
    );
  if (owner && owner.ident !== o.ident)
    throw conflict(
      `${where(at)}the title "${o.name}" is taken by ${owner.type} "${owner.ident}" ("${owner.name}"): AQL names objects by title in any case ([${o.name.trim()}]), so ${TITLED_TYPES.join(', ')} titles are unique; choose another`,
      {
        field: 'name',
        title: o.name,
        taken: { ident: owner.ident, type: owner.type, name: owner.name },
        ...(at !== undefined ? { index: at } : {}),
      },
    );
  owners.set(key, o);
}

/**
 * `userrole.members` says who holds a role: user administration. Changing it needs the User
 * Admin level, and nobody adds or removes themselves.
 */
function checkMembership(
  actor: ProjectActor,
  before: unknown,
  after: unknown,
  at: number | undefined,
  selfCheck = true,
): void {
  const set = (v: unknown) =>
    new Set((Array.isArray(v) ? v : []).map((m) => String(m).trim().toLowerCase()));
  const b = set(before);
  const a = set(after);
  const changed = [...b].filter((m) => !a.has(m)).concat([...a].filter((m) => !b.has(m)));
  if (!changed.length) return;
  const field = `${where(at)}def.members`;
  if (!hasLevel(actor, 'useradmin'))
    throw forbidden(
      `${field}: who holds a user role is user administration; it needs the User Admin permission level`,
      { field: 'def.members', required: 'useradmin', ...(at !== undefined ? { index: at } : {}) },
    );
  if (selfCheck && changed.includes(actor.email.toLowerCase()))
    throw forbidden(
      `${field}: you cannot add yourself to or remove yourself from a user role; another Admin or User Admin must`,
      { field: 'def.members', ...(at !== undefined ? { index: at } : {}) },
    );
}

/** Readable by the scope's actor, or missing altogether (a dangling id reveals nothing). */
const seen = (s: ModelScope, ident: string) => !s.index.byIdent.has(ident) || !!s.get(ident);

const bound = (o: { projectId: string; ident: string }) => `${o.projectId}/${o.ident}`;

const where = (at: number | undefined) => (at === undefined ? '' : `${at}.`);

function parseAt<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: Array<string | number>,
  at: number | undefined,
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({
    path: [...prefix, ...i.path].map(String).join('.') || '(body)',
    message: i.message,
  }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw invalid(`invalid object: ${first.path}: ${first.message}${more}`, {
    issues,
    ...(at !== undefined ? { index: at } : {}),
  });
}

function withoutReadOnly(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out = { ...(raw as Record<string, unknown>) };
  for (const k of READ_ONLY_FIELDS) delete out[k];
  return out;
}

function parseNew(raw: unknown, at: number | undefined) {
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && isLoadType(type))
    throw invalid(
      `invalid object: ${where(at)}type: objects of type "${type}" are created by data loads; load a file with that column instead`,
      { field: 'type', value: type, ...(at !== undefined ? { index: at } : {}) },
    );
  if (typeof type !== 'string' || !isObjectType(type))
    throw invalid(
      `invalid object: ${where(at)}type: must be one of ${OBJECT_TYPES.filter((t) => !isLoadType(t)).join(', ')}`,
      { field: 'type', value: type ?? null, ...(at !== undefined ? { index: at } : {}) },
    );
  return parseAt(objectInput, withoutReadOnly(raw), at !== undefined ? [at] : [], at);
}

function parseReplace(raw: unknown) {
  return parseAt(objectReplace, withoutReadOnly(raw), [], undefined);
}

function checkReserved(ident: string, at: number | undefined): void {
  const prefix = RESERVED_PREFIXES.find((p) => ident.startsWith(p));
  if (prefix)
    throw invalid(
      `invalid object: ${where(at)}ident: "${prefix}…" identifiers belong to data loads`,
      { field: 'ident', value: ident, ...(at !== undefined ? { index: at } : {}) },
    );
}

/** `<type>.<slug of the name>`, with `_2`, `_3`… when taken. */
export function generateIdent(type: string, name: string, taken: Set<string>): string {
  const slug =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 60) || 'object';
  const base = `${type}.${slug}`;
  let ident = base;
  for (let n = 2; taken.has(ident); n++) ident = `${base}_${n}`;
  return ident;
}

function parseRel(rel: unknown): ObjectType[] | null {
  const values = (Array.isArray(rel) ? rel : rel === undefined ? [] : [rel])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (!values.length) return null;
  const types = values.map((v) => v.replace(/^object\./, ''));
  const bad = values.filter((v, i) => !v.startsWith('object.') || !isObjectType(types[i]!));
  if (bad.length)
    throw invalid(
      `unknown rel ${bad.map((b) => `"${b}"`).join(', ')}; allowed: ${OBJECT_TYPES.map((t) => `object.${t}`).join(', ')}`,
      { field: 'rel', invalid: bad, allowed: OBJECT_TYPES.map((t) => `object.${t}`) },
    );
  return types as ObjectType[];
}

function commaList(v: unknown, field: string): string[] {
  if (v === undefined) return [];
  if (typeof v !== 'string' && !Array.isArray(v))
    throw invalid(`${field} must be a comma list`, { field });
  return (Array.isArray(v) ? v : [v])
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The asked fields, in the view's order; `ident` always, so answers can be matched. */
function pick(v: ObjectView, keys: string[]): Partial<ObjectView> {
  const out: Record<string, unknown> = { ident: v.ident };
  for (const k of VIEW_KEYS) if (keys.includes(k)) out[k] = v[k];
  return out as Partial<ObjectView>;
}
