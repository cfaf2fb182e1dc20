// The shapes the Data screen reads from the API (docs/api.md "Storage", "Loading data",
// "Jobs", "Data integration"; docs/loading.md for the prescription).

import type { LoadEvent } from '../../../contract/activity';
import { DATA_TYPE_NAMES, type Dataset, type DataType } from '../../../contract/data';
import type { FlowListItem as Flow } from '../../../contract/flows';
import type { ColumnKind } from '../../../contract/guess';
import {
  isFinal,
  type JobStarted as JobLink,
  type JobStatus,
  type JobView,
  type LoadJobResult,
  type LoadProgress,
} from '../../../contract/jobs';
import type { StorageItem } from '../../../contract/storage';

export {
  isFinal,
  type Dataset,
  type DataType,
  type Flow,
  type JobLink,
  type JobStatus,
  type LoadEvent,
  type StorageItem,
};
export const DATA_TYPES: readonly DataType[] = DATA_TYPE_NAMES;

/** The column kinds as the form names them. */
export const OBJECT_TYPES: Array<[ColumnKind, string]> = [
  ['A', 'Attribute'],
  ['L', 'Label'],
  ['F', 'Fact'],
];

/** A load job as the Data screen follows it. */
export type Job = JobView<LoadJobResult, LoadProgress>;
