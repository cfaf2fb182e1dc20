// What storage announces when a file or folder changes, whichever door it came through (flows'
// WebDAV triggers listen).
export type ChangeKind = 'created' | 'updated' | 'deleted' | 'moved' | 'copied';

export interface StorageChange {
  projectId: string;
  path: string;
  kind: ChangeKind;
  type: 'file' | 'folder';
  /** For moves and copies: where it came from. */
  from?: string;
  user: string | null;
  /** The job that wrote it, when a job did (WriteOptions.job). */
  job?: string;
}

export type ChangeListener = (change: StorageChange) => void | Promise<void>;
