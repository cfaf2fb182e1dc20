// The SQL API behind a balancer in TCP mode (issue 33): HAProxy's PROXY header (`send-proxy`)
// names the client, so the sign-in limits count each client, not the balancer. The header is
// honoured only from a peer URSA_TRUST_PROXY trusts, and a trusted peer may send none.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustsPeer } from '../src/sql/proxy-header.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ URSA_SQL_PORT: '0', URSA_TRUST_PROXY: 'loopback' });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** A connection as `user` with a wrong password, through a "balancer" naming `client`. */
async function wrongPassword(user: string, client?: string): Promise<string> {
  const stream = new net.Socket();
  if (client) {
    const connect = stream.connect.bind(stream) as (...a: unknown[]) => net.Socket;
    (stream as unknown as { connect: (...a: unknown[]) => net.Socket }).connect = (...a) => {
      const r = connect(...a);
      stream.write(`PROXY TCP4 ${client} 127.0.0.1 40000 ${s.sqlPort}\r\n`);
      return r;
    };
  }
  const c = new pg.Client({
    host: '127.0.0.1',
    port: s.sqlPort,
    user,
    password: 'not-the-password',
    database: s.demo,
    stream: () => stream,
  });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.end();
    return 'connected';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('the PROXY header', () => {
  it('counts failed sign-ins per client the balancer names', async () => {
    const user = 'proxy-guess@example.com';
    for (let i = 0; i < 10; i++) expect(await wrongPassword(user, '203.0.113.9')).toBe('28P01');
    expect(await wrongPassword(user, '203.0.113.9')).toBe('28000');
    // Another client behind the same balancer, and a direct connection, are not blocked.
    expect(await wrongPassword(user, '203.0.113.10')).toBe('28P01');
    expect(await wrongPassword(user)).toBe('28P01');
  });

  it('is trusted only from the peers URSA_TRUST_PROXY names', () => {
    expect(trustsPeer('loopback')('127.0.0.1')).toBe(true);
    expect(trustsPeer('loopback')('::ffff:127.0.0.1')).toBe(true);
    expect(trustsPeer('loopback')('203.0.113.9')).toBe(false);
    expect(trustsPeer('10.0.0.0/8, 192.0.2.7')('192.0.2.7')).toBe(true);
    expect(trustsPeer('10.0.0.0/8, 192.0.2.7')('10.1.2.3')).toBe(true);
    expect(trustsPeer(false)('127.0.0.1')).toBe(false);
    expect(trustsPeer(true)('203.0.113.9')).toBe(true);
  });
});
