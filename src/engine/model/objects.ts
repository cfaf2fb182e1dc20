// The semantic model service (pmd/obj and friends). Every method takes the caller's
// ProjectActor and enforces levels, ACLs and visibility itself: an object the caller cannot
// read does not exist for them, on every path (lists, get, search, bulk, graphs, folders'
// content, predecessors and successors). Writes are one transaction each, keep a revision,
// bump the model version (ModelStore) and record an obj_action event.
import { z } from 'zod';
import { sameJson } from '../same-json.js';
import { hasLevel, requireLevel, type ProjectActor } from '../access/actor.js';
import { OWN_DELIVERY_TYPES, ownDeliveryProblem } from './own-delivery.js';
import type { ActivityLog } from '../activity/activity.js';
import type { Datasets } from '../data/datasets.js';
import { tx, type Db } from '../db/index.js';
import { modelLock } from '../db/lock-names.js';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { pagingSchema, parseInput } from '../validate.js';
import { parseRoleAcl, withRoleAcl } from './acl-batch.js';
import { checkModel, checkObjects, type Problem } from './checks.js';
import { titleKey, type AclEntry, type ObjectType } from './defs.js';
import { ModelIndex } from './dependencies.js';
import { refModel } from '../aql/ref-rewrite.js';
import { storeDef } from './saved-aql.js';
import { ldmGraph, odmGraph, type LdmGraph, type OdmGraph } from './graphs.js';
import {
  checkMembership,
  checkReserved,
  generateIdent,
  isLoadType,
  MAX_BATCH,
  parseBulk,
  parseFolderChange,
  parseNew,
  parseRel,
  parseRevision,
  parseReplace,
} from './object-input.js';
import { checkRefs, type CompileCheck } from './object-refs.js';
import { openSecret, sealDef } from './object-secrets.js';
import { claimTitle, titleOwners } from './object-titles.js';
import {
  pick,
  rowAt,
  summary,
  viewOf,
  type ObjectDetails,
  type ObjectSummary,
  type ObjectView,
  type RevisionInfo,
  type SearchResult,
} from './object-view.js';
import { ModelScope } from './scope.js';
import { parseSearchFields, searchRows, type Searchable } from './search.js';
import type { SecretBox } from './secrets.js';
import type { ModelStore, ObjectInput, ObjectRow } from './store.js';
import type { RowFilterGuard } from '../users/row-filter-guard.js';

const datasetsParam = z.object({ datasets: z.enum(['true', 'false']).optional() });

/** The datasets the actor reads a column of, as search reads them (by name). */
function datasetRows(rows: ObjectRow[]): Searchable[] {
  const names = new Set<string>();
  for (const r of rows) {
    const ds = (r.def as { dataset?: unknown } | null)?.dataset;
    if (['attribute', 'label', 'fact'].includes(r.type) && typeof ds === 'string') names.add(ds);
  }
  return [...names].map((name) => ({
    ident: `dataset.${name}`,
    type: 'dataset',
    name,
    description: '',
    tags: [],
  }));
}

// What front doors and other areas read of objects.
export type { CompileCheck } from './object-refs.js';
export type { ObjectDetails, ObjectSummary, ObjectView, RevisionInfo } from './object-view.js';

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

  private limitCheck:
    ((projectId: string, name: 'flows' | 'deliveries', extra: number) => Promise<void>) | null =
    null;

  /** Plan limits on objects (flows): a create beyond the limit is refused with 402. */
  setLimitCheck(
    check: (projectId: string, name: 'flows' | 'deliveries', extra: number) => Promise<void>,
  ): void {
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
    return openSecret(this.secrets, (await this.scope(actor)).get(ident));
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
    const n = parseRevision(revision);
    const rev = await this.store.revisionAt(actor.projectId, ident, n);
    if (!rev)
      throw notFound(`object "${ident}" has no revision ${n} (latest: ${row.revision})`, {
        ident,
        revision: n,
        latest: row.revision,
      });
    return this.view(rowAt(row, rev, n), s);
  }

  /** The project's data and model versions (counters of changes; every member reads them). */
  versions(actor: ProjectActor): Promise<{ dataVersion: number; modelVersion: number }> {
    return this.store.versions(actor.projectId);
  }

  async bulk(actor: ProjectActor, q: { idents?: unknown; keys?: unknown }) {
    const { idents, keys } = parseBulk(q);
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

  /**
   * Objects (and, with `datasets: "true"`, datasets: `dataset.<name>`, type `dataset`) whose
   * fields hold the query, best first. A dataset is one the actor reads a column of.
   */
  async search(
    actor: ProjectActor,
    q: { query?: unknown; params?: unknown; limit?: unknown; datasets?: unknown },
  ): Promise<{ hits: SearchResult[]; total: number }> {
    const text = typeof q.query === 'string' ? q.query.trim() : '';
    if (!text) throw invalid('query is required: the text to search for', { field: 'query' });
    const fields = parseSearchFields(typeof q.params === 'string' ? q.params : undefined);
    const { limit } = parseInput(pagingSchema, { limit: q.limit ?? 50 }, 'paging');
    const { datasets } = parseInput(datasetsParam, { datasets: q.datasets }, 'query');
    const objects = (await this.scope(actor)).rows();
    const rows: Searchable[] =
      datasets === 'true' ? [...objects, ...datasetRows(objects)] : objects;
    const hits = searchRows(rows, text, fields);
    return {
      total: hits.length,
      hits: hits.slice(0, limit).map((h) => ({
        ident: h.row.ident,
        type: h.row.type,
        name: h.row.name,
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
    // Below MD Admin: only one's own subscriptions and alerts (own-delivery.ts).
    const own = !hasLevel(actor, 'mdadmin');
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (!items.length) throw invalid('the array of objects is empty', { count: 0 });
    if (items.length > MAX_BATCH)
      throw invalid(
        `at most ${MAX_BATCH} objects per create call, got ${items.length}; split the array`,
        { count: items.length, limit: MAX_BATCH },
      );
    if (own)
      for (const raw of items) {
        const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
        const why = ownDeliveryProblem(actor.email, String(r.type), r.def, r.acl);
        if (why) throw ownRefused(actor, why);
      }
    const parsed = items.map((raw, i) => parseNew(raw, batch ? i : undefined));
    const flows = parsed.filter((p) => p.type === 'flow').length;
    const deliveries = parsed.filter((p) => OWN_DELIVERY_TYPES.includes(p.type)).length;

    return this.change(actor, async () => {
      // Under the model's lock, so concurrent creates in other processes count too.
      if (flows) await this.limitCheck?.(actor.projectId, 'flows', flows);
      if (deliveries) await this.limitCheck?.(actor.projectId, 'deliveries', deliveries);
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
          def: sealDef(this.secrets, actor.projectId, ident, p.type, p.def, undefined, at),
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
        await checkRefs(
          this.compileCheck,
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
    return this.write(actor, ident, parseReplace(body), true, !hasLevel(actor, 'mdadmin'));
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
    own = false,
  ): Promise<ObjectView> {
    return this.change(actor, async () => {
      const s = await this.scope(actor);
      const row = this.mustSee(s, ident);
      if (own) {
        const why =
          row.createdBy !== actor.email
            ? `a member below MD Admin changes only the subscriptions and alerts they created`
            : ownDeliveryProblem(actor.email, row.type, p.def, p.acl);
        if (why) throw ownRefused(actor, why);
      }
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
      if (!own && !s.allows(row, 'w'))
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
        def = sealDef(
          this.secrets,
          actor.projectId,
          ident,
          row.type as ObjectType,
          p.def,
          row.def,
          undefined,
        );
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
        if (checkAll) await checkRefs(this.compileCheck, after, updated, undefined, written);
        await this.record(actor, 'update', updated);
      }
      return this.view(updated, after);
    });
  }

  async remove(actor: ProjectActor, ident: string): Promise<void> {
    const own = !hasLevel(actor, 'mdadmin');
    await this.change(actor, async () => {
      const s = await this.scope(actor);
      const row = this.mustSee(s, ident);
      if (own && (row.createdBy !== actor.email || !OWN_DELIVERY_TYPES.includes(row.type)))
        throw ownRefused(
          actor,
          'a member below MD Admin deletes only the subscriptions and alerts they created',
        );
      // Deleting a role takes it from its members: user administration, but not a self-change.
      if (row.type === 'userrole')
        checkMembership(actor, row.def.members, undefined, undefined, false);
      if (isLoadType(row.type))
        throw invalid(
          `${row.type} "${ident}" was created by a data load; delete the dataset's column by reloading`,
          { ident, type: row.type },
        );
      if (!own && !s.allows(row, 'd'))
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
    const { op, ident, content } = parseFolderChange(body);
    const s = await this.scope(actor);
    const folder = this.mustSee(s, ident);
    if (folder.type !== 'folder')
      throw invalid(`"${ident}" is a ${folder.type}, not a folder`, { ident, type: folder.type });
    const current = ((folder.def.content as string[] | undefined) ?? []).slice();
    let next: string[];
    if (op === 'add') {
      const unknown = content.filter((c) => !s.get(c));
      if (unknown.length)
        throw invalid(`no such object: ${unknown.map((u) => `"${u}"`).join(', ')}`, {
          field: 'content',
          unknown,
        });
      next = [...current, ...content.filter((c) => !current.includes(c))];
      next = [...new Set(next)];
    } else {
      next = current.filter((c) => !content.includes(c));
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
  /**
   * A change no member makes through the model API: one object's def edited by the engine on
   * someone's behalf (a recipient taking themself off a subscription by its signed link),
   * under the model lock, as a revision by `by`. `edit` answers the new def, or null to leave
   * it. False when there is no such object of that type, or nothing changed.
   */
  async editOnBehalf(
    projectId: string,
    ident: string,
    type: ObjectType,
    edit: (def: Record<string, unknown>) => Record<string, unknown> | null,
    by: string,
  ): Promise<boolean> {
    return tx(
      this.db,
      async () => {
        const row = await this.store.get(projectId, ident);
        if (!row || row.type !== type) return false;
        const def = edit(row.def);
        if (!def) return false;
        this.writes++;
        const changed = await this.store.upsert(
          projectId,
          [{ ident, type, name: row.name, description: row.description, def, tags: row.tags }],
          by,
        );
        return changed > 0;
      },
      { lock: [modelLock(projectId)] },
    );
  }

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
    return viewOf(row, s);
  }
}

/** The 403 of a member below MD Admin writing what is not their own subscription or alert. */
function ownRefused(actor: ProjectActor, why: string) {
  return forbidden(
    `this operation needs the MD Admin permission level in project ${actor.projectId}: ${why}`,
    { project: actor.projectId, required: 'mdadmin' },
  );
}
