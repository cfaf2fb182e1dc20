// XML in and out. Requests are parsed by a namespace-aware DOM parser (@xmldom/xmldom) because
// WebDAV names every element by namespace + local name, whatever prefix a client picks.
// Responses are built as text with every value escaped; they never declare a default
// namespace, so echoed dead properties in no namespace stay in no namespace.
import { DOMParser, XMLSerializer, type Document, type Element, type Node } from '@xmldom/xmldom';
import type { Request } from 'express';
import { HttpError } from '../http/errors.js';

export const DAV = 'DAV:';
export const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>\n';
/** Largest XML request body (PROPFIND, PROPPATCH, LOCK) we read. */
const MAX_XML_BYTES = 1024 * 1024;

const ELEMENT_NODE = 1;

export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

/** Reads the request body (bounded); an empty body is null. */
export async function readBody(req: Request, limit = MAX_XML_BYTES): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit)
        throw new HttpError(413, `the request body is larger than ${limit} bytes`, { limit });
      chunks.push(chunk);
    }
  } catch (err) {
    // A client that hangs up mid-body: a 400 nobody reads, not an internal error.
    if (!req.complete && !(err instanceof HttpError))
      throw new HttpError(400, 'the request ended before its body did');
    throw err;
  }
  return size === 0 ? null : Buffer.concat(chunks);
}

/** Parses an XML request body; anything not well-formed (or namespace-invalid) is a 400. */
export function parseXml(body: Buffer): Document {
  const text = body.toString('utf8');
  const bad = (why: string) =>
    new HttpError(400, `the XML request body is not valid: ${why}`, { type: 'xml' });
  // No DTDs: WebDAV bodies never need one, and entity tricks are then impossible.
  if (/<!DOCTYPE/i.test(text)) throw bad('a DOCTYPE is not allowed');
  let doc: Document;
  try {
    doc = new DOMParser({
      locator: false,
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'application/xml');
  } catch (err) {
    throw bad((err as Error).message.replace(/^.*caused Error: /s, '').slice(0, 300));
  }
  if (!doc.documentElement) throw bad('there is no root element');
  for (const el of descendants(doc.documentElement)) {
    for (const a of Array.from(el.attributes)) {
      // Namespaces in XML 1.0: a prefix cannot be bound to the empty name (litmus
      // propfind_invalid2).
      if (a.name.startsWith('xmlns:') && a.value === '')
        throw bad(`the prefix "${a.name.slice(6)}" is bound to an empty namespace name`);
    }
  }
  return doc;
}

function* descendants(el: Element): Generator<Element> {
  yield el;
  for (const c of children(el)) yield* descendants(c);
}

export function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let n: Node | null = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === ELEMENT_NODE) out.push(n as Element);
  return out;
}

export function isDav(el: Element, localName: string): boolean {
  return el.namespaceURI === DAV && el.localName === localName;
}

export function davChild(el: Element, localName: string): Element | undefined {
  return children(el).find((c) => isDav(c, localName));
}

/** Namespace URI ('' for none) and local name of an element. */
export function nameOf(el: Element): { ns: string; name: string } {
  return { ns: el.namespaceURI ?? '', name: el.localName ?? el.nodeName };
}

/** The xml:lang in force on an element (its own or inherited), if any. */
function langOf(el: Element): string | null {
  for (let n: Node | null = el; n && n.nodeType === ELEMENT_NODE; n = n.parentNode) {
    const lang = (n as Element).getAttributeNS('http://www.w3.org/XML/1998/namespace', 'lang');
    if (lang) return lang;
  }
  return null;
}

/** An element as self-contained XML: namespaces declared where used, xml:lang kept. */
export function outerXml(el: Element): string {
  const lang = langOf(el);
  const node =
    lang && !el.hasAttribute('xml:lang')
      ? (() => {
          const copy = el.cloneNode(true) as Element;
          copy.setAttribute('xml:lang', lang);
          return copy;
        })()
      : el;
  return new XMLSerializer().serializeToString(node);
}

/** The children of an element, each self-contained. */
export function innerXml(el: Element): string {
  const s = new XMLSerializer();
  let out = '';
  for (let n: Node | null = el.firstChild; n; n = n.nextSibling) out += s.serializeToString(n);
  return out;
}

/** An element named by namespace + local name, with `inner` as its (already XML) content. */
export function element(ns: string, name: string, inner = ''): string {
  const open =
    ns === DAV
      ? `D:${name}`
      : ns === ''
        ? `${name} xmlns=""`
        : `z:${name} xmlns:z="${escapeXml(ns)}"`;
  const close = ns === DAV ? `D:${name}` : ns === '' ? name : `z:${name}`;
  return inner === '' ? `<${open}/>` : `<${open}>${inner}</${close}>`;
}
