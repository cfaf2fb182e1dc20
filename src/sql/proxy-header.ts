// The PROXY protocol (version 1, HAProxy's `send-proxy`) on the SQL listener: a balancer in TCP
// mode says who the client is in a first line, `PROXY TCP4 <client> <proxy> <cport> <pport>`.
// Honoured only from a peer URSA_TRUST_PROXY trusts (else anyone could claim any address and
// escape the sign-in limits, which count per address); a trusted peer may also send none.
import net from 'node:net';

/** The longest v1 header (the protocol's own bound), CRLF included. */
const MAX_HEADER = 107;
const SIGNATURE = Buffer.from('PROXY ');
const TIMEOUT_MS = 5_000;

const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Whether URSA_TRUST_PROXY trusts a peer at `address`, read as the HTTP door reads it: true
 * or a hop count trusts any peer; a list names addresses, subnets (CIDR) or `loopback`,
 * `linklocal`, `uniquelocal`.
 */
export function trustsPeer(setting: boolean | number | string): (address: string) => boolean {
  if (setting === true || (typeof setting === 'number' && setting > 0)) return () => true;
  if (typeof setting !== 'string') return () => false;
  const list = new net.BlockList();
  for (const item of setting
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean))
    for (const entry of NAMED[item] ?? [item]) {
      const [addr, bits] = entry.split('/');
      const type = net.isIPv6(addr!) ? 'ipv6' : 'ipv4';
      if (!net.isIP(addr!)) continue;
      if (bits) list.addSubnet(addr!, Number(bits), type);
      else list.addAddress(addr!, type);
    }
  return (address) => {
    const a = address.replace(/^::ffff:(?=\d+\.)/, '');
    return net.isIP(a) ? list.check(a, net.isIPv6(a) ? 'ipv6' : 'ipv4') : false;
  };
}

/**
 * The client's address: from a PROXY header when a trusted peer sends one (the bytes after it
 * are put back for the protocol), else the peer's own. Rejects a malformed header.
 */
export function clientAddress(socket: net.Socket, trusted: boolean): Promise<string> {
  const peer = socket.remoteAddress ?? '';
  if (!trusted) return Promise.resolve(peer);
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const done = (err: Error | null, address?: string, rest?: Buffer) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (rest?.length) socket.unshift(rest);
      if (err) reject(err);
      else resolve(address!);
    };
    const onClose = () => done(new Error('closed before the PROXY header'));
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const n = Math.min(buf.length, SIGNATURE.length);
      // Not a PROXY header: a client connecting directly (the peer is trusted).
      if (!buf.subarray(0, n).equals(SIGNATURE.subarray(0, n))) return done(null, peer, buf);
      const end = buf.indexOf('\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEADER) done(new Error('PROXY header too long'));
        return;
      }
      const parts = buf.subarray(0, end).toString('latin1').split(' ');
      const rest = buf.subarray(end + 2);
      if (parts[1] === 'UNKNOWN') return done(null, peer, rest);
      if ((parts[1] !== 'TCP4' && parts[1] !== 'TCP6') || parts.length !== 6)
        return done(new Error('malformed PROXY header'));
      done(null, parts[2]!, rest);
    };
    const timer = setTimeout(() => done(new Error('no data after connecting')), TIMEOUT_MS);
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}
