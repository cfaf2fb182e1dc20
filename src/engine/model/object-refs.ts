// What an object's def names must exist, be readable by the writer and be of the right type;
// its AQL must compile; a dashboard's items and layout agree, a folder holds not itself, a
// trigger chain has no cycle, a flow's graph is whole. Failures are 400s naming the field.
import type { ProjectActor } from '../access/actor.js';
import { EngineError, invalid } from '../errors.js';
import { checkFlowDef } from '../flows/flow-def.js';
import { describeCycle, sequenceCycle } from '../flows/triggers/sequence-cycles.js';
import { periodMeasure, type AlertCondition, type AlertWatch } from './alert-measure.js';
import { AQL_KIND, type ObjectType } from './defs.js';
import type { Ref } from './dependencies.js';
import { where } from './object-input.js';
import type { ModelScope } from './scope.js';
import type { ObjectRow } from './store.js';

/** Compiles AQL as the given kind for the actor; null when it compiles, else the error. */
export type CompileCheck = (
  actor: ProjectActor,
  aql: string,
  kind: 'metric' | 'filter' | 'report',
) => Promise<string | null>;

/** What the def names must exist, be readable and be of the right type; AQL must compile. */
export async function checkRefs(
  compileCheck: CompileCheck | null,
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
    const err = await compileCheck?.(s.actor, String(aql), k);
    if (err) fail(field, err);
  };
  const refs = s.index.refs(row);
  const aqlRefs = refs.filter((r) => r.aql && !r.dataset);
  // The compiler reports unknown references itself, with suggestions; without it, we do.
  if (!compileCheck) for (const r of aqlRefs) need(r, null);
  if (kind && (written ?? def.aql) !== undefined)
    await compile(written ?? def.aql, kind, 'def.aql');
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
    case 'subscription': {
      for (const r of refs) need(r, ['dashboard']);
      // Its items and fixed filters must be the dashboard's (checked again at each send).
      const dash = s.get(String(def.dashboard))?.def as
        { items?: { id: string }[]; filters?: { attribute: string }[] } | undefined;
      const ids = (dash?.items ?? []).map((i) => i.id);
      (def.items as string[] | undefined)?.forEach((id, i) => {
        if (!ids.includes(id))
          fail(`def.items.${i}`, `the dashboard has no item "${id}"; its items: ${ids.join(', ')}`);
      });
      const attrs = (dash?.filters ?? []).map((f) => f.attribute);
      (def.filters as string[] | undefined)?.forEach((f, i) => {
        const key = f.slice(0, Math.max(0, f.indexOf(':'))).trim();
        const ok = attrs.some(
          (a) => a === key || s.get(a)?.name.toLowerCase() === key.toLowerCase(),
        );
        if (!ok)
          fail(
            `def.filters.${i}`,
            `"${f}" is not <attribute>:<value> of a filter of the dashboard; its filters: ${attrs.join(', ') || 'none'}`,
          );
      });
      break;
    }
    case 'alert': {
      for (const r of refs)
        if (r.field === 'def.metric') need(r, ['metric']);
        else if (r.field === 'def.webhook.secret') need(r, ['credentials']);
      // A period compared by change%: its date must filter the measure.
      const period = (def.condition as AlertCondition | undefined)?.period;
      if (period)
        await compile(
          periodMeasure(def as AlertWatch, period, 0),
          'metric',
          'def.condition.period.date',
        );
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
