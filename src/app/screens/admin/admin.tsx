// Project administration for Admins and User Admins: members, settings (Admins only), usage
// against the plan's limits, and the activity log. Each tab has its address:
// /admin (members), /admin/members, /admin/settings, /admin/usage, /admin/activity.
import type { ComponentType } from 'preact';
import { useProject, type ProjectDetails } from '../../project';
import { appPath } from '../../router';
import { Tabs, Title } from '../../ui';
import { Activity } from './activity';
import { Members } from './members';
import { Settings } from './settings';
import { Usage } from './usage';
import './admin.css';

interface Tab {
  path: string;
  title: string;
  allowed: (p: ProjectDetails) => boolean;
  screen: ComponentType;
}

const TABS: Tab[] = [
  {
    path: 'members',
    title: 'Members',
    allowed: (p) => p.access.admin || p.access.useradmin,
    screen: Members,
  },
  { path: 'settings', title: 'Settings', allowed: (p) => p.access.admin, screen: Settings },
  { path: 'usage', title: 'Usage', allowed: () => true, screen: Usage },
  { path: 'activity', title: 'Activity', allowed: () => true, screen: Activity },
];

export function Admin({ rest }: { rest: string[] }) {
  const p = useProject();
  const [name = 'members', ...more] = rest;
  const tabs = TABS.filter((t) => t.allowed(p));
  const tab = TABS.find((t) => t.path === name);
  let body;
  if (!tab || more.length) body = <p role="alert">There is no such screen in this project.</p>;
  else if (!tab.allowed(p))
    body = (
      <p role="alert">Only the project’s Admins may see or change its {tab.title.toLowerCase()}.</p>
    );
  else body = <tab.screen />;
  return (
    <section class="admin">
      <Title text={tab ? `${tab.title} · Admin` : 'Admin'}>Admin</Title>
      <Tabs
        label="Admin"
        tabs={tabs.map((t) => ({
          href: appPath('p', p.id, 'admin', t.path),
          title: t.title,
          current: t === tab,
        }))}
      />
      {body}
    </section>
  );
}
