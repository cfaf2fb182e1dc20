// A typed face for resumable.js (npm `resumablejs`, bundled by esbuild): only what the upload
// uses. Its own resumable.d.ts types a namespace that does not describe the options we pass
// (a `query` function) nor the events' arguments, so the constructor is retyped here.
import ResumableLib from 'resumablejs';

export interface ResumableFile {
  file: File;
  fileName: string;
  size: number;
  uniqueIdentifier: string;
  progress(relative?: boolean): number;
  pause(pause?: boolean): void;
  isPaused(): boolean;
  abort(): void;
  cancel(): void;
  retry(): void;
  isUploading(): boolean;
  isComplete(): boolean;
}

export interface ResumableOptions {
  target: string;
  chunkSize: number;
  forceChunkSize?: boolean;
  simultaneousUploads: number;
  testChunks: boolean;
  method: 'multipart' | 'octet';
  query: (file: ResumableFile) => Record<string, string>;
  headers?: Record<string, string>;
  generateUniqueIdentifier: (file: File) => string;
  permanentErrors: number[];
  maxChunkRetries: number;
  chunkRetryInterval: number;
  withCredentials: boolean;
}

export interface ResumableEvents {
  fileAdded: (file: ResumableFile) => void;
  fileProgress: (file: ResumableFile) => void;
  fileSuccess: (file: ResumableFile, message: string) => void;
  fileError: (file: ResumableFile, message: string) => void;
  fileRetry: (file: ResumableFile) => void;
}

export interface Resumable {
  support: boolean;
  files: ResumableFile[];
  addFile(file: File): void;
  upload(): void;
  uploadNextChunk(): boolean;
  isUploading(): boolean;
  removeFile(file: ResumableFile): void;
  on<E extends keyof ResumableEvents>(event: E, handler: ResumableEvents[E]): void;
}

export const createResumable = (options: ResumableOptions): Resumable =>
  new (ResumableLib as unknown as new (o: ResumableOptions) => Resumable)(options);
