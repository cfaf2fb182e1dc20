// Dashboards: the list (/app/p/{project}/dashboards), and one dashboard
// (/app/p/{project}/dashboards/{id}) with its filters, sharing and PDF export.
import './dashboards.css';
import { DashboardList } from './list';
import { DashboardView } from './view';

export function Dashboards({ rest }: { rest: string[] }) {
  const [id, ...more] = rest;
  if (!id) return <DashboardList />;
  if (more.length) return <p role="alert">There is no such screen in this project.</p>;
  return <DashboardView id={id} />;
}
