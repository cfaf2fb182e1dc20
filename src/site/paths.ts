// Where the site's content lives: resolved from this file so that any working directory works.
import { fileURLToPath } from 'node:url';

/** site/: pricing.yaml and blog/*.md. */
export const SITE_DIR = fileURLToPath(new URL('../../site/', import.meta.url));
/** docs/: the Markdown documentation that llms.txt links to. */
export const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));
