// PROPPATCH: sets and removes dead properties in document order, all or nothing. A request
// that touches a protected live property changes nothing: that property answers 403 and
// every other one 424 Failed Dependency.
import type { Element } from '@xmldom/xmldom';
import { notFound } from '../engine/errors.js';
import type { PropOp } from '../engine/storage/project-files.js';
import { HttpError } from '../http/errors.js';
import { href, requireTokens, type Dav } from './context.js';
import { isLiveProp } from './live-props.js';
import { multistatus, responseXml, sendXml } from './respond.js';
import { children, davChild, element, isDav, nameOf, outerXml, parseXml, readBody } from './xml.js';

function operations(root: Element): PropOp[] {
  if (!isDav(root, 'propertyupdate'))
    throw new HttpError(400, 'the PROPPATCH body must be a DAV:propertyupdate element');
  const ops: PropOp[] = [];
  for (const instruction of children(root)) {
    const set = isDav(instruction, 'set');
    if (!set && !isDav(instruction, 'remove')) continue; // unknown elements are ignored
    const prop = davChild(instruction, 'prop');
    if (!prop) throw new HttpError(400, `DAV:${instruction.localName} needs a DAV:prop element`);
    for (const p of children(prop)) {
      const { ns, name } = nameOf(p);
      ops.push(set ? { op: 'set', ns, name, value: outerXml(p) } : { op: 'remove', ns, name });
    }
  }
  if (ops.length === 0) throw new HttpError(400, 'the PROPPATCH body names no property');
  return ops;
}

export async function proppatch(dav: Dav): Promise<void> {
  const body = await readBody(dav.req);
  if (!body) throw new HttpError(400, 'PROPPATCH needs a DAV:propertyupdate body');
  const ops = operations(parseXml(body).documentElement!);
  const { item } = dav;
  if (!item) throw notFound(`no file or folder at "${dav.path}"`, { path: dav.path });
  requireTokens(dav, [{ path: dav.path }]);

  const names = new Map<string, string>(); // each property once, in first-seen order
  for (const o of ops) names.set(`${o.ns} ${o.name}`, element(o.ns, o.name));
  const protectedKeys = new Set(
    ops.filter((o) => isLiveProp(o.ns, o.name)).map((o) => `${o.ns} ${o.name}`),
  );
  const propstats = new Map<number, string[]>();
  if (protectedKeys.size) {
    for (const [key, xml] of names) {
      const status = protectedKeys.has(key) ? 403 : 424;
      propstats.set(status, [...(propstats.get(status) ?? []), xml]);
    }
  } else {
    await dav.engine.files.patchProps(dav.actor, item.path, ops);
    propstats.set(200, [...names.values()]);
  }
  sendXml(
    dav.res,
    207,
    multistatus([responseXml(href(dav, item.path, item.type === 'folder'), propstats)]),
  );
}
