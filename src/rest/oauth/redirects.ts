// Which redirect URIs a client may register (RFC 8252, OAuth 2.1): https anywhere; plain
// http only to a loopback address, where the browser hands the code to an app on the same
// machine; a private-use scheme (cursor://, vscode://…) that the operating system hands to
// the app that claimed it. Desktop MCP clients use the last two.

/** The loopback hosts oidc-provider accepts for native clients. */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * For a registration's `redirect_uris`: a refusal (starting with "redirect_uris", which makes
 * oidc-provider answer `invalid_redirect_uri`), true when the client is a native app (a
 * loopback or private-use redirect: any loopback port is then accepted at authorization, and
 * consent is asked every time, since any local app could listen there), false otherwise.
 * Malformed URIs are left to oidc-provider's own checks.
 */
export function nativeRedirects(uris: unknown): string | boolean {
  if (!Array.isArray(uris)) return false;
  let native = false;
  for (const uri of uris) {
    const url = typeof uri === 'string' ? URL.parse(uri) : null;
    if (!url || url.protocol === 'https:') continue;
    if (url.protocol === 'http:') {
      if (!LOOPBACK.has(url.hostname))
        return `redirect_uris: plain http is accepted only to a loopback address (http://127.0.0.1:<port>/…, http://[::1]:<port>/…, http://localhost:<port>/…), not ${url.origin}; use https`;
    }
    native = true;
  }
  return native;
}
