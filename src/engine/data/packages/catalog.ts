// Every data package the product ships, by id.
import { calendarPackage } from './calendar.js';
import { countriesPackage } from './countries.js';
import type { DataPackage } from './package.js';

export const PACKAGES: readonly DataPackage[] = [calendarPackage, countriesPackage];

export const packageById = (id: string): DataPackage | undefined =>
  PACKAGES.find((p) => p.id === id);
