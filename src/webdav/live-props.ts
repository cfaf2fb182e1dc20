// Live properties: computed from the stored item and its locks, never stored, and protected
// (PROPPATCH cannot set or remove them).
import type { StorageItem } from '../engine/storage/project-files.js';
import { contentTypeOf, etagOf } from '../http/file-response.js';
import type { DavLock } from './locks.js';
import { escapeXml } from './xml.js';

export const LIVE_PROPS = [
  'creationdate',
  'displayname',
  'getcontentlength',
  'getcontenttype',
  'getetag',
  'getlastmodified',
  'lockdiscovery',
  'resourcetype',
  'supportedlock',
] as const;

export function isLiveProp(ns: string, name: string): boolean {
  return ns === 'DAV:' && (LIVE_PROPS as readonly string[]).includes(name);
}

export function activeLockXml(l: DavLock): string {
  const remaining = Math.max(0, Math.round((l.expires - Date.now()) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype>` +
    `<D:lockscope><D:${l.scope}/></D:lockscope><D:depth>${l.depth}</D:depth>` +
    (l.owner ? `<D:owner>${l.owner}</D:owner>` : '') +
    `<D:timeout>Second-${remaining}</D:timeout>` +
    `<D:locktoken><D:href>${escapeXml(l.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${escapeXml(l.href)}</D:href></D:lockroot></D:activelock>`
  );
}

const SUPPORTED_LOCK = ['exclusive', 'shared']
  .map(
    (s) =>
      `<D:lockentry><D:lockscope><D:${s}/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`,
  )
  .join('');

/** The value (inner XML) of a live property, or null when the resource has none. */
export function liveValue(name: string, item: StorageItem, locks: DavLock[]): string | null {
  const folder = item.type === 'folder';
  switch (name) {
    case 'resourcetype':
      return folder ? '<D:collection/>' : '';
    case 'getcontentlength':
      return folder ? null : String(item.size);
    case 'getcontenttype':
      return folder ? null : escapeXml(contentTypeOf(item.name));
    case 'getlastmodified':
      return new Date(item.modified).toUTCString();
    // Storage keeps no birth time; the last change is the closest truthful answer.
    case 'creationdate':
      return new Date(item.modified).toISOString();
    case 'getetag':
      return escapeXml(etagOf(item));
    case 'displayname':
      return escapeXml(item.name);
    case 'supportedlock':
      return SUPPORTED_LOCK;
    case 'lockdiscovery':
      return locks.map(activeLockXml).join('');
    default:
      return null;
  }
}
