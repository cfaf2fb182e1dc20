// A file or folder of a project's storage as the API lists it (docs/api.md "Storage").
export interface StorageItem {
  fileId: string;
  name: string;
  path: string;
  type: 'file' | 'folder';
  size: number;
  modified: string;
  /** withStats: number of files and folders below a folder. */
  items?: number;
}
