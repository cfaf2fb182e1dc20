// A raw HTTP client over node:http, for requests fetch cannot make as-is: no Accept header
// at all (fetch adds `*/*`), full control over Cookie and Origin, and a chosen local address
// (`from`: any of 127.0.0.0/8 reaches a loopback server) to play clients at several addresses.
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export function rawRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    from?: string;
  } = {},
): Promise<RawResponse> {
  const from = opts.from ? { localAddress: opts.from, family: 4, agent: false } : {};
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? 'GET', headers: opts.headers ?? {}, ...from },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** The value of the first `name=` cookie set by a response, or undefined. */
export function setCookieValue(
  headers: http.IncomingHttpHeaders,
  name: string,
): { value: string; attributes: string } | undefined {
  for (const line of headers['set-cookie'] ?? []) {
    const [pair = '', ...attrs] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) {
      return { value: pair.slice(eq + 1).trim(), attributes: `;${attrs.join(';')}` };
    }
  }
  return undefined;
}

/** An HTTP Basic Authorization header. */
export const basic = (user: string, secret: string) =>
  `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
