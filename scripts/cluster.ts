// `npm run cluster [-- --processes N --port P --sql-port S]`: PostgreSQL, N Ursa processes
// (default 3) on one data directory and HAProxy in front (HTTP on P, 8080; the SQL API on S,
// 5433), all on loopback; prints the address, the admin's
// password and a token; Ctrl-C stops and removes everything (docs/scaling.md).
import { parseArgs } from 'node:util';
import { startCluster } from './cluster-lib.js';

const { values } = parseArgs({
  options: {
    processes: { type: 'string' },
    port: { type: 'string' },
    'sql-port': { type: 'string' },
  },
});
const processes = values.processes ? Number(values.processes) : 3;
const port = values.port ? Number(values.port) : 8080;
if (!Number.isInteger(processes) || processes < 1 || processes > 16)
  throw new Error('--processes takes a whole number from 1 to 16');
const sqlPort = values['sql-port'] ? Number(values['sql-port']) : 5433;
for (const p of [port, sqlPort])
  if (!Number.isInteger(p) || p < 1 || p > 65535)
    throw new Error('--port and --sql-port take a port');

console.log(`starting PostgreSQL, ${processes} Ursa processes and HAProxy…`);
const cluster = await startCluster({ processes, port, sqlPort, log: (l) => console.log(l) });
const token = await cluster.token(cluster.adminEmail);
console.log(`
Ursa cluster at ${cluster.url}  (app: ${cluster.url}/app)
  processes:  ${cluster.processes.map((p) => p.url).join('  ')}
  metadata:   ${cluster.databaseUrl.replace(/:[^:@/]+@/, ':***@')}
  data:       ${cluster.dataDir}
  sign in:    ${cluster.adminEmail} / ${cluster.adminPassword}
  token:      ${token}

  curl -H "Authorization: Bearer <token>" ${cluster.url}/api/v1/projects
  PGPASSWORD=<token> psql -h 127.0.0.1 -p ${cluster.sqlPort} -U ${cluster.adminEmail} -d <project id>
Ctrl-C stops everything and removes the data.`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping…');
  cluster.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
