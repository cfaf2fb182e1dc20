// Loading data: structure guess, load execution, and the data/model versions.
import type { DataLoadStatus } from '../../contract/data.js';
import type { Guess } from '../../contract/guess.js';
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { jobStarted } from './jobs.js';
import { invalid } from '../../engine/errors.js';
import { runStarted } from './flows.js';

const guessReply = (projectId: string, g: Guess) => ({
  title: 'Structure guess',
  body: {
    ident: g.ident,
    prescription: g.prescription,
    link: [
      link('project', projectPath(projectId)),
      link('load', `${projectPath(projectId)}/kodiak/transform/execute`),
    ],
  },
});

export const dataRoutes: RouteDef[] = [
  {
    group: 'Loading data',
    path: '/projects/:project/data/guesstable',
    ops: {
      GET: {
        access: 'mdadmin',
        description:
          'Warehouse project: the tables and views of the bound schema that can be mapped as datasets.',
        handler: async ({ engine, actor }) => {
          const tables = await engine.warehouse.tables(actor);
          const base = `${projectPath(actor.projectId)}/data/guesstable`;
          return {
            title: 'Warehouse tables',
            body: {
              tables: tables.map((t) => ({
                ...t,
                link: [link('guesstable', `${base}/${encodeURIComponent(t.ident)}`)],
              })),
              link: [
                link('project', projectPath(actor.projectId)),
                link('load', `${projectPath(actor.projectId)}/kodiak/transform/execute`),
              ],
            },
            tabular: tables,
          };
        },
      },
    },
  },
  {
    group: 'Loading data',
    path: '/projects/:project/data/guesstable/:table',
    ops: {
      GET: {
        access: 'mdadmin',
        description:
          'Warehouse project: the structure guess (prescription) of a table or view `schema.table`, from the catalog: types, primary key, foreign keys as references, sample rows.',
        handler: async ({ engine, actor, params }) => {
          const g = await engine.warehouse.guess(actor, params.table!);
          const reply = guessReply(actor.projectId, g);
          return { ...reply, body: { ...reply.body, skipped: g.skipped } };
        },
      },
    },
  },
  {
    group: 'Loading data',
    path: '/projects/:project/data/guessupload/:uploadId',
    ops: {
      GET: {
        access: 'mdadmin',
        description: 'Guess the structure (prescription) of an uploaded or stored file.',
        handler: async ({ engine, actor, params }) =>
          guessReply(actor.projectId, await engine.prescriptions.guess(actor, params.uploadId!)),
      },
      PUT: {
        access: 'mdadmin',
        description: 'Save an edited prescription for that file (validated against it).',
        handler: async ({ engine, actor, params, body }) =>
          guessReply(
            actor.projectId,
            await engine.prescriptions.save(actor, params.uploadId!, body),
          ),
      },
    },
  },
  {
    group: 'Loading data',
    path: '/projects/:project/kodiak/transform/execute',
    ops: {
      POST: {
        access: 'mdadmin',
        description:
          'Load files into datasets `{ type: "cluster", clusters: { <name>: { source_type: "webdav", source, mode? } } }` → 202 job link; run a flow `{ type: "flow", id }` → 201 job link (403 while it runs).',
        handler: async ({ engine, actor, body }) => {
          const type = (body as { type?: unknown } | undefined)?.type;
          if (type === 'flow') {
            const id = (body as { id?: unknown }).id;
            if (typeof id !== 'string' || !id)
              throw invalid('name the flow to run: { "type": "flow", "id": <flow id> }', {
                field: 'id',
              });
            return runStarted(await engine.flows.start(actor, id));
          }
          return jobStarted(await engine.loads.start(actor, body));
        },
      },
    },
  },
  {
    group: 'Loading data',
    path: '/projects/:project/kodiak/dataload',
    ops: {
      GET: {
        access: 'member',
        description:
          "Current data and model versions and the loaded datasets; for a warehouse project, its schema, how long cached answers are served, and each dataset's rows as PostgreSQL has them now (rowsEstimated: true when they are its estimate).",
        handler: async ({ engine, actor }) => {
          const status = await engine.datasets.status(actor);
          const dataload: DataLoadStatus = {
            ...status,
            datasets: await engine.warehouse.withLiveRows(actor.projectId, status.datasets),
          };
          return {
            title: 'Data load status',
            body: {
              dataload,
              warehouse: await engine.warehouse.status(actor.projectId),
              link: [link('loads', `${projectPath(actor.projectId)}/activity/loads?latest=1`)],
            },
            tabular: dataload.datasets,
            filename: 'datasets',
          };
        },
      },
    },
  },
];
