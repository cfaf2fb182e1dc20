// Request bodies: JSON (recommended), YAML, or form-urlencoded with nested keys (a[b]=1).
import express, { type RequestHandler } from 'express';
import yaml from 'js-yaml';
import { HttpError } from './errors.js';

const LIMIT = '10mb';
const YAML_TYPES = ['text/yaml', 'application/yaml', 'application/x-yaml', 'text/x-yaml'];

const json = express.json({
  limit: LIMIT,
  type: ['application/json', 'application/*+json'],
  strict: false,
});
const form = express.urlencoded({ limit: LIMIT, extended: true, parameterLimit: 10_000 });
const text = express.text({ limit: LIMIT, type: YAML_TYPES });

export const parseBody: RequestHandler = (req, res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) {
    req.body = undefined;
    return next();
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return json(req, res, next);
  if (type === 'application/x-www-form-urlencoded') return form(req, res, next);
  if (YAML_TYPES.includes(type)) {
    return text(req, res, (err?: unknown) => {
      if (err) return next(err);
      try {
        req.body = yaml.load(String(req.body ?? ''));
        next();
      } catch (e) {
        next(
          new HttpError(
            400,
            `the YAML body does not parse: ${(e as Error).message.split('\n')[0]}`,
            { type: 'yaml' },
          ),
        );
      }
    });
  }
  next(
    new HttpError(
      415,
      `unsupported request body type "${type || '(none)'}"; send application/json, text/yaml or application/x-www-form-urlencoded`,
      {
        contentType: type,
      },
    ),
  );
};
