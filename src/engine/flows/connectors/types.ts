// What connectors share: the network policy, the settings of a credentials object, and the
// context of one read. Connectors never log or return a secret.

/** Which private hosts connectors may reach (URSA_CONNECTOR_ALLOW_HOSTS). */
export interface NetPolicy {
  /** Host names or literal addresses, lower case, without brackets. */
  allowHosts: string[];
}

/** A credentials object's def as stored, with its secret decrypted (engine-internal only). */
export interface Credentials {
  ident: string;
  kind: 'postgres' | 'sftp' | 'http';
  host?: string;
  port?: number;
  user?: string;
  database?: string;
  /** SFTP: the server's pinned host key fingerprint (`SHA256:…`). */
  hostKey?: string;
  /** HTTP: the secret is an API key sent in this header or query parameter. */
  apiKey?: { in: 'header' | 'query'; name: string };
  /** postgres: read replicas as host:port (warehouse queries). */
  replicas?: string[];
  sslmode?: 'disable' | 'require' | 'verify-full';
  /** The decrypted secret: a password, a token, `user:password`, or a private key (PEM). */
  secret: string | null;
}

export interface ReadContext {
  /** The box id, for error messages (BoxError). */
  box: string;
  signal: AbortSignal;
  net: NetPolicy;
}

/** A column's type as connectors report it; DuckDB types follow (run.ts). */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'json';

export interface ColumnInfo {
  name: string;
  type: ColumnType;
}
