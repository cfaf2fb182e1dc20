// The Data screen for MD Admins and Admins: files into storage (chunked uploads with
// resumable.js), a file's structure guess edited and loaded as a dataset, the datasets with
// their rows and last load, and the flows with Run and Stop. Each part has its address:
// /data (files), /data/files?folder=…, /data/load/{fileId}[?job=…], /data/datasets,
// /data/datasets/{name} (its columns and first rows), /data/flows.
import { useProject } from '../../project';
import { appPath } from '../../router';
import { Tabs, Title } from '../../ui';
import { Datasets } from './datasets';
import { Files } from './files';
import { Flows } from './flows';
import { LoadFile } from './guess';
import { DatasetPreview } from './preview';
import './data.css';

const TABS = [
  { path: 'files', title: 'Files', screen: Files },
  { path: 'datasets', title: 'Datasets', screen: Datasets },
  { path: 'flows', title: 'Flows', screen: Flows },
];

export function Data({ rest }: { rest: string[] }) {
  const p = useProject();
  const [name = 'files', ...more] = rest;
  const load = name === 'load' && more.length === 1 ? more[0] : undefined;
  const tab = TABS.find((t) => t.path === name);
  const dataset = name === 'datasets' && more.length === 1 ? more[0] : undefined;
  let body;
  if (load) body = <LoadFile key={load} uploadId={load} />;
  else if (dataset) body = <DatasetPreview key={dataset} name={dataset} />;
  else if (!tab || more.length) body = <p role="alert">There is no such screen in this project.</p>;
  else body = <tab.screen />;
  const title = load ? 'Load a file' : tab ? tab.title : 'Data';
  return (
    <section class="data">
      <Title text={`${title} · Data`}>{load ? 'Load a file' : 'Data'}</Title>
      <Tabs
        label="Data"
        tabs={TABS.map((t) => ({
          href: appPath('p', p.id, 'data', t.path),
          title: t.title,
          current: t === tab || (Boolean(load) && t.path === 'files'),
        }))}
      />
      {body}
    </section>
  );
}
