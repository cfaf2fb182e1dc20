// The REST door's refusal of text the metadata database cannot store (src/shared/
// storable-text.ts): 400 in the spec's error shape, naming the field. The URL (path segments
// and query) is checked once for every request to the app, before anyone is authenticated;
// bodies where they are parsed (body.ts, the OAuth sign-in form, multipart field names).
import type { NextFunction, Request, Response } from 'express';
import { findUnstorable, findUnstorableInPath, type Unstorable } from '../shared/storable-text.js';
import { HttpError } from './errors.js';

export function unstorableError(found: Unstorable): HttpError {
  const { field, character, line, column } = found;
  return new HttpError(400, found.message, { field, character, line, column });
}

/** Throws a 400 when `value` (a string, or objects and arrays of them) holds unstorable text. */
export function refuseUnstorable(value: unknown, field: string): void {
  const found = findUnstorable(value, field);
  if (found) throw unstorableError(found);
}

/** Middleware: the request's path segments and query parameters, for every door of the app. */
export function refuseUnstorableUrl(req: Request, _res: Response, next: NextFunction): void {
  const found = findUnstorableInPath(req.path) ?? findUnstorable(req.query, 'query');
  next(found ? unstorableError(found) : undefined);
}
