// How a member connects a PostgreSQL client (psql, DBeaver, Tableau, Power BI, Excel, pandas)
// to the project: the SQL API's connection details, and their own SQL password when an Admin
// allows them (shown once; a BI tool keeps it, which a short-lived API token cannot be).
import { useState } from 'preact/hooks';
import { api, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { asApiError, Problem } from '../model/parts';

interface SqlConnectionInfo {
  enabled: boolean;
  host: string;
  port: number | null;
  database: string;
  user: string;
  tls: boolean;
  passwords: { allowed: boolean; set: boolean };
}

export function SqlConnection() {
  const p = useProject();
  const r = useResource<{ sql: SqlConnectionInfo }>(`${projectApi(p.id)}/sql`);
  const [password, setPassword] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  // A server without the SQL API (URSA_SQL_PORT unset) has nothing to show.
  if (!r.value?.sql.enabled) return null;
  const s = r.value.sql;
  const act = async (method: 'POST' | 'DELETE') => {
    setBusy(true);
    setError(undefined);
    try {
      const out = await api<{ password?: string }>(method, `${projectApi(p.id)}/sql/password`);
      setPassword(out?.password);
      r.reload();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  const psql = `psql "host=${s.host} port=${s.port} dbname=${s.database} user=${s.user}${s.tls ? ' sslmode=require' : ''}"`;
  return (
    <section class="card sql-connection" aria-labelledby="sql-h">
      <h2 id="sql-h">Connect a SQL client</h2>
      <p class="muted">
        psql, DBeaver, Tableau, Power BI, Excel and pandas read this project’s model as PostgreSQL
        tables, with your access and row filter.
      </p>
      <dl class="member-facts">
        <div>
          <dt>Host</dt>
          <dd>{s.host}</dd>
        </div>
        <div>
          <dt>Port</dt>
          <dd>{s.port}</dd>
        </div>
        <div>
          <dt>Database</dt>
          <dd>{s.database}</dd>
        </div>
        <div>
          <dt>User</dt>
          <dd>{s.user}</dd>
        </div>
        <div>
          <dt>Password</dt>
          <dd>
            an API token
            {s.passwords.allowed &&
              (s.passwords.set ? ', or your SQL password' : ', or a SQL password you create')}
          </dd>
        </div>
        <div>
          <dt>SSL</dt>
          <dd>{s.tls ? 'available (use sslmode=require)' : 'not offered by this server'}</dd>
        </div>
      </dl>
      <p>
        <code class="sql-psql">{psql}</code>
      </p>
      {password && (
        <p class="ok" role="status">
          Your SQL password (shown once; copy it now): <code>{password}</code>
        </p>
      )}
      {s.passwords.allowed && (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void act('POST')}>
            {s.passwords.set ? 'Replace my SQL password' : 'Create a SQL password'}
          </button>
          {s.passwords.set && (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => void act('DELETE')}
            >
              Delete it
            </button>
          )}
        </div>
      )}
      <Problem error={error} />
    </section>
  );
}
