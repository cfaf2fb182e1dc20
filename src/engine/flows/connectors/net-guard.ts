// The network guard every connector goes through: connectors refuse loopback, link-local,
// private, unspecified, multicast and other non-public addresses unless the operator listed
// the host in URSA_CONNECTOR_ALLOW_HOSTS. The check runs after DNS resolution, on the
// addresses actually connected to, so a name cannot resolve to one address when checked and
// another when connected (DNS rebinding); HTTP checks again on every connection it opens
// (redirects and keep-alive included) through guardedLookup.
import dns from 'node:dns';
import net from 'node:net';
import { BoxError, boxErrorDetail } from '../errors.js';
import type { NetPolicy } from './types.js';

export interface GuardContext {
  /** The box id, for the error. */
  box: string;
  /** The box parameter the host comes from (`url`, `credentials`…), for the error. */
  field: string;
  net: NetPolicy;
}

// ---------------------------------------------------------------------------------------
// Address classification

/** IPv4 ranges that are not public: [network, prefix length]. */
const V4_BLOCKED: [number, number][] = [
  [v4('0.0.0.0'), 8], // "this network", 0.0.0.0 unspecified
  [v4('10.0.0.0'), 8], // RFC 1918
  [v4('100.64.0.0'), 10], // CGNAT (RFC 6598)
  [v4('127.0.0.0'), 8], // loopback
  [v4('169.254.0.0'), 16], // link-local (cloud metadata services)
  [v4('172.16.0.0'), 12], // RFC 1918
  [v4('192.0.0.0'), 24], // IETF protocol assignments
  [v4('192.0.2.0'), 24], // TEST-NET-1
  [v4('192.88.99.0'), 24], // 6to4 relay anycast (deprecated)
  [v4('192.168.0.0'), 16], // RFC 1918
  [v4('198.18.0.0'), 15], // benchmarking
  [v4('198.51.100.0'), 24], // TEST-NET-2
  [v4('203.0.113.0'), 24], // TEST-NET-3
  [v4('224.0.0.0'), 4], // multicast
  [v4('240.0.0.0'), 4], // reserved, 255.255.255.255 broadcast
];

function v4(s: string): number {
  const p = s.split('.');
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

function v4Public(n: number): boolean {
  for (const [base, bits] of V4_BLOCKED) {
    if (n >>> (32 - bits) === base >>> (32 - bits)) return false;
  }
  return true;
}

/** The eight 16-bit groups of a valid IPv6 address (without zone). */
function v6Groups(s: string): number[] {
  let text = s;
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) is two groups.
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const n = v4(last);
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const dbl = text.indexOf('::');
  if (dbl < 0) return parse(text);
  const head = parse(text.slice(0, dbl));
  const rest = parse(text.slice(dbl + 2));
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

function stripHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h;
}

function stripZone(addr: string): string {
  const i = addr.indexOf('%');
  return i >= 0 ? addr.slice(0, i) : addr;
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), or null. */
function embeddedV4(g: number[]): number | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const low = ((g6 << 16) | g7) >>> 0;
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated, SIIT)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) {
    if (g4 === 0 && g5 === 0xffff) return low;
    if (g4 === 0xffff && g5 === 0) return low;
  }
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return low;
  // 2002:aabb:ccdd::/48 (6to4)
  if (g0 === 0x2002) return ((g1 << 16) | g2) >>> 0;
  return null;
}

function v6Public(g: number[]): boolean {
  const inner = embeddedV4(g);
  if (inner !== null) return v4Public(inner);
  const g0 = g[0] ?? 0;
  const g1 = g[1] ?? 0;
  // Only global unicast (2000::/3) is public; ::, ::1, IPv4-compatible, fc00::/7, fe80::/10,
  // fec0::/10, ff00::/8 and the other reserved blocks all fall outside it.
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 < 0x200) return false; // 2001::/23 IETF (Teredo, ORCHID…)
  if (g0 === 0x2001 && g1 === 0xdb8) return false; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return false; // 3fff::/20 documentation
  return true;
}

/**
 * Whether a literal address is public, i.e. a connector may reach it without the operator
 * listing it. False for loopback, link-local, private (RFC 1918, CGNAT, unique local),
 * unspecified, multicast, broadcast, documentation and reserved ranges, for IPv4-mapped,
 * NAT64 and 6to4 forms of those, and for anything that is not an IP address.
 */
export function isPublicAddress(addr: string): boolean {
  const a = stripZone(stripHost(addr));
  const kind = net.isIP(a);
  if (kind === 4) return v4Public(v4(a));
  if (kind === 6) return v6Public(v6Groups(a));
  return false;
}

/** One spelling per address, for comparing an address with the allow list. */
function canonical(addr: string): string {
  const a = stripZone(stripHost(addr));
  const kind = net.isIP(a);
  if (kind === 4) return a;
  if (kind !== 6) return a;
  const g = v6Groups(a);
  const [g0, g1, g2, g3, g4, g5] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    const n = (((g[6] ?? 0) << 16) | (g[7] ?? 0)) >>> 0;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  return g.map((x) => x.toString(16)).join(':');
}

// ---------------------------------------------------------------------------------------
// The policy

interface AllowSets {
  key: string;
  names: Set<string>;
  addrs: Set<string>;
}
const allowCache = new WeakMap<NetPolicy, AllowSets>();

function allowSets(policy: NetPolicy): AllowSets {
  const key = policy.allowHosts.join(',');
  let sets = allowCache.get(policy);
  // Rebuilt when the list changed in place (the cache is only a shortcut).
  if (!sets || sets.key !== key) {
    const names = new Set<string>();
    const addrs = new Set<string>();
    for (const h of policy.allowHosts) {
      const s = stripHost(h);
      if (!s) continue;
      names.add(s);
      if (net.isIP(stripZone(s))) addrs.add(canonical(s));
    }
    sets = { key, names, addrs };
    allowCache.set(policy, sets);
  }
  return sets;
}

/** Whether a connection to `address` (which `host` resolved to) is allowed. */
export function isAllowed(host: string, address: string, policy: NetPolicy): boolean {
  if (isPublicAddress(address)) return true;
  const { names, addrs } = allowSets(policy);
  return names.has(stripHost(host)) || addrs.has(canonical(address));
}

function refusal(host: string, address: string, ctx: GuardContext): BoxError {
  const h = stripHost(host);
  const what = stripZone(h) === stripZone(address) ? `address ${address}` : `"${h}" (${address})`;
  return new BoxError(
    ctx.box,
    ctx.field,
    `connecting to ${what} is refused: it is a loopback, private, link-local or otherwise ` +
      `non-public address. An operator can allow it by listing the host in ` +
      `URSA_CONNECTOR_ALLOW_HOSTS (a comma list of hosts that may be reached).`,
  );
}

/**
 * For a literal IP host (which Node connects to without calling a lookup function), refuse it
 * now if it is not allowed; host names are left to resolveAllowed / guardedLookup.
 */
export function checkLiteralHost(host: string, ctx: GuardContext): void {
  const h = stripHost(host);
  if (net.isIP(stripZone(h)) && !isAllowed(h, h, ctx.net)) throw refusal(h, h, ctx);
}

function lookupFailure(host: string, err: unknown, ctx: GuardContext): BoxError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return new BoxError(
    ctx.box,
    ctx.field,
    `cannot resolve host "${stripHost(host)}"${code ? ` (${code})` : ''}`,
  );
}

/**
 * Resolves a host (every address it has) and refuses it if ANY address is not allowed;
 * returns the address to connect to. Connectors that open their own sockets (Postgres, SFTP)
 * connect to the returned address, never to the name again.
 */
export async function resolveAllowed(
  host: string,
  ctx: GuardContext,
): Promise<{ address: string; family: 4 | 6 }> {
  const h = stripHost(host);
  if (!h) throw new BoxError(ctx.box, ctx.field, 'the host is empty');
  const literal = net.isIP(stripZone(h));
  if (literal) {
    checkLiteralHost(h, ctx);
    return { address: h, family: literal === 6 ? 6 : 4 };
  }
  let addrs: dns.LookupAddress[];
  try {
    addrs = await dns.promises.lookup(h, { all: true, verbatim: true });
  } catch (err) {
    throw lookupFailure(h, err, ctx);
  }
  if (addrs.length === 0) throw lookupFailure(h, null, ctx);
  for (const a of addrs) if (!isAllowed(h, a.address, ctx.net)) throw refusal(h, a.address, ctx);
  const first = addrs[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * A `lookup` for http.request / https.request / net.connect that resolves like dns.lookup and
 * fails the connection (with the BoxError as the socket's error) when any address the name
 * resolves to is not allowed. Node calls it for every new connection, so redirects and
 * keep-alive reconnections are all checked. Literal IP hosts do not go through a lookup: check
 * those with checkLiteralHost before the request.
 */
export function guardedLookup(ctx: GuardContext): net.LookupFunction {
  return (hostname, options, callback) => {
    const opts: dns.LookupAllOptions = { all: true };
    if (options.family !== undefined) opts.family = options.family;
    if (options.hints !== undefined) opts.hints = options.hints;
    if (options.verbatim !== undefined) opts.verbatim = options.verbatim;
    const done = (err: NodeJS.ErrnoException | null, addrs: dns.LookupAddress[]) => {
      // Decide first, call back once, outside any try: an exception escaping into this libuv
      // callback would end the process.
      let failure: NodeJS.ErrnoException | null = err;
      if (!failure) {
        try {
          if (addrs.length === 0) failure = lookupFailure(hostname, null, ctx);
          const bad = addrs.find((a) => !isAllowed(hostname, a.address, ctx.net));
          if (bad) failure = refusal(hostname, bad.address, ctx);
        } catch (e) {
          failure = e instanceof Error ? e : new Error(String(e));
        }
      }
      if (failure) callback(failure, '', 0);
      else if (options.all) callback(null, addrs);
      else callback(null, addrs[0]!.address, addrs[0]!.family);
    };
    try {
      dns.lookup(hostname, opts, done);
    } catch (e) {
      // dns.lookup throws on arguments it refuses; report that as the connection's error.
      const err = e instanceof Error ? e : new Error(String(e));
      process.nextTick(() => callback(err, '', 0));
    }
  };
}

/**
 * The guard for a server named by a credentials object: its refusal names host:port under
 * the `credentials` field ("PostgreSQL server db.internal:5432: …").
 */
export async function resolveServer(
  what: string,
  host: string,
  port: number,
  ctx: { box: string; net: NetPolicy },
): Promise<{ address: string; family: 4 | 6 }> {
  try {
    return await resolveAllowed(host, { box: ctx.box, field: 'credentials', net: ctx.net });
  } catch (err) {
    if (err instanceof BoxError && err.message.includes(`${host}:${port}`)) throw err;
    throw new BoxError(ctx.box, 'credentials', `${what} ${host}:${port}: ${boxErrorDetail(err)}`);
  }
}
