// Where the site's content lives, inside the installation (any working directory works).
import path from 'node:path';
import { installed } from '../shared/install-root.js';

/** site/: pricing.yaml and blog/*.md. */
export const SITE_DIR = installed('site') + path.sep;
/** docs/: the Markdown documentation that llms.txt links to. */
export const DOCS_DIR = installed('docs') + path.sep;
