// Dashboards: the list, and one dashboard with its filters, sharing and PDF export.
export function Dashboards(_props: { rest: string[] }) {
  return <section />;
}
