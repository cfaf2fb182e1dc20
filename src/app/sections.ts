// The screens of a project, in the order the navigation shows them, with who may use each:
// a control the member cannot use is not offered (the API still answers 403 if asked).
import type { ComponentType } from 'preact';
import type { ProjectDetails } from './project';
import { Dashboards } from './screens/dashboards/dashboards';
import { Chat } from './screens/chat/chat';

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
];
