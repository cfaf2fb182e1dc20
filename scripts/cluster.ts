// `npm run cluster [-- --processes N --port P]`: PostgreSQL, N Ursa processes (default 3) on
// one data directory and HAProxy in front, all on loopback; prints the address, the admin's
// password and a token; Ctrl-C stops and removes everything (docs/scaling.md).
import { parseArgs } from 'node:util';
import { startCluster } from './cluster-lib.js';

const { values } = parseArgs({
  options: { processes: { type: 'string' }, port: { type: 'string' } },
});
const processes = values.processes ? Number(values.processes) : 3;
const port = values.port ? Number(values.port) : 8080;
if (!Number.isInteger(processes) || processes < 1 || processes > 16)
  throw new Error('--processes takes a whole number from 1 to 16');
if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port takes a port');

console.log(`starting PostgreSQL, ${processes} Ursa processes and HAProxy…`);
const cluster = await startCluster({ processes, port, log: (l) => console.log(l) });
const token = await cluster.token(cluster.adminEmail);
console.log(`
Ursa cluster at ${cluster.url}  (app: ${cluster.url}/app)
  processes:  ${cluster.processes.map((p) => p.url).join('  ')}
  metadata:   ${cluster.databaseUrl.replace(/:[^:@/]+@/, ':***@')}
  data:       ${cluster.dataDir}
  sign in:    ${cluster.adminEmail} / ${cluster.adminPassword}
  token:      ${token}

  curl -H "Authorization: Bearer <token>" ${cluster.url}/api/v1/projects
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
