// PROPFIND: live and dead properties of a resource and, with Depth 1 or infinity, of its
// members. allprop, propname and prop requests; unknown properties get a 404 propstat.
import type { Element } from '@xmldom/xmldom';
import { notFound } from '../engine/errors.js';
import type { StorageItem } from '../engine/storage/project-files.js';
import { HttpError } from '../http/errors.js';
import { href, type Dav } from './context.js';
import { LIVE_PROPS, liveValue } from './live-props.js';
import { multistatus, responseXml, sendXml } from './respond.js';
import { children, davChild, element, isDav, nameOf, parseXml, readBody } from './xml.js';

type Request =
  | { kind: 'allprop'; include: { ns: string; name: string }[] }
  | { kind: 'propname' }
  | { kind: 'prop'; names: { ns: string; name: string }[] };

function parseRequest(root: Element | null): Request {
  if (!root) return { kind: 'allprop', include: [] }; // an empty body means allprop
  if (!isDav(root, 'propfind'))
    throw new HttpError(400, 'the PROPFIND body must be a DAV:propfind element');
  // Unknown elements are ignored (RFC 4918 §17), so allprop wins over extensions.
  if (davChild(root, 'propname')) return { kind: 'propname' };
  const prop = davChild(root, 'prop');
  if (davChild(root, 'allprop') || !prop) {
    const include = davChild(root, 'include');
    return { kind: 'allprop', include: include ? children(include).map(nameOf) : [] };
  }
  return { kind: 'prop', names: children(prop).map(nameOf) };
}

function depthOf(header: string | undefined): 0 | 1 | 'infinity' {
  if (header === undefined) return 'infinity';
  const d = header.trim().toLowerCase();
  if (d === '0') return 0;
  if (d === '1') return 1;
  if (d === 'infinity') return 'infinity';
  throw new HttpError(400, `Depth must be 0, 1 or infinity, not "${header.slice(0, 50)}"`);
}

async function describe(dav: Dav, item: StorageItem, request: Request): Promise<string> {
  const found: string[] = [];
  const missing: string[] = [];
  const dead = await dav.engine.files.deadProps(dav.actor, item.path);
  const locks = dav.locks.covering(item.path);
  if (request.kind === 'propname') {
    for (const name of LIVE_PROPS)
      if (liveValue(name, item, []) !== null) found.push(element('DAV:', name));
    for (const p of dead) found.push(element(p.ns, p.name));
  } else {
    const wanted =
      request.kind === 'prop'
        ? request.names
        : [
            ...LIVE_PROPS.map((name) => ({ ns: 'DAV:', name })),
            ...dead.map(({ ns, name }) => ({ ns, name })),
            ...request.include,
          ];
    const seen = new Set<string>();
    for (const { ns, name } of wanted) {
      const key = `${ns} ${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const live = ns === 'DAV:' ? liveValue(name, item, locks) : null;
      const stored = live === null ? dead.find((p) => p.ns === ns && p.name === name) : undefined;
      if (live !== null) found.push(element(ns, name, live));
      else if (stored) found.push(stored.value);
      else if (request.kind === 'prop') missing.push(element(ns, name));
    }
  }
  const propstats = new Map<number, string[]>();
  if (found.length || !missing.length) propstats.set(200, found);
  if (missing.length) propstats.set(404, missing);
  return responseXml(href(dav, item.path, item.type === 'folder'), propstats);
}

export async function propfind(dav: Dav): Promise<void> {
  const depth = depthOf(dav.req.headers.depth as string | undefined);
  const body = await readBody(dav.req);
  const request = parseRequest(body ? parseXml(body).documentElement : null);
  const { item } = dav;
  if (!item) throw notFound(`no file or folder at "${dav.path}"`, { path: dav.path });
  const responses = [await describe(dav, item, request)];
  const walk = async (folder: StorageItem, levels: number) => {
    const { children: members } = await dav.engine.files.list(dav.actor, folder.path);
    for (const m of members) {
      responses.push(await describe(dav, m, request));
      if (m.type === 'folder' && levels > 1) await walk(m, levels - 1);
    }
  };
  if (item.type === 'folder' && depth !== 0)
    await walk(item, depth === 'infinity' ? Number.POSITIVE_INFINITY : 1);
  sendXml(dav.res, 207, multistatus(responses));
}
