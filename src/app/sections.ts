// The screens of a project, in the order the navigation shows them, with who may use each:
// a control the member cannot use is not offered (the API still answers 403 if asked).
import type { ComponentType } from 'preact';
import type { ProjectDetails } from './project';
import { Dashboards } from './screens/dashboards/dashboards';
import { Explore } from './screens/explore/explore';
import { Data } from './screens/data/data';
import { Chat } from './screens/chat/chat';
import { Model } from './screens/model/model';
import { Admin } from './screens/admin/admin';

export interface Section {
  path: string;
  title: string;
  blurb: string;
  allowed: (p: ProjectDetails) => boolean;
  /** Renders the section; `rest` holds the path segments after its own. */
  screen: ComponentType<{ rest: string[] }>;
}

const everyone = () => true;

export const SECTIONS: Section[] = [
  {
    path: 'chat',
    title: 'Chat',
    blurb: 'Ask questions about the data in plain language',
    allowed: everyone,
    screen: Chat,
  },
  {
    path: 'dashboards',
    title: 'Dashboards',
    blurb: 'View, filter, share and export dashboards',
    allowed: everyone,
    screen: Dashboards,
  },
  {
    path: 'explore',
    title: 'Explore',
    blurb: 'Write AQL queries, see the results, save them as metrics and reports',
    allowed: everyone,
    screen: Explore,
  },
  {
    path: 'data',
    title: 'Data',
    blurb: 'Upload files, load them as datasets, see the datasets and run flows',
    allowed: (p) => p.access.mdadmin || p.access.admin,
    screen: Data,
  },
  {
    path: 'model',
    title: 'Model',
    blurb: 'Browse the metrics, reports, attributes and other objects, with their history',
    allowed: everyone,
    screen: Model,
  },
  {
    path: 'admin',
    title: 'Admin',
    blurb: 'Members and their access, settings, usage of the plan and the activity log',
    allowed: (p) => p.access.admin || p.access.useradmin,
    screen: Admin,
  },
];
