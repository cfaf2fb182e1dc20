// Request bodies: JSON (recommended), YAML, or form-urlencoded with nested keys (a[b]=1).
// Every format is held to the same shape limits (src/shared/shape.ts): nesting, number of
// values, and for YAML alias expansion, so no body can stall the event loop or fill memory.
// A field holding text the metadata database cannot store (NUL) is refused here, for every route.
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { parseJson } from '../shared/json.js';
import { BODY_LIMITS, checkShape, ParseError, tooDeep } from '../shared/shape.js';
import { parseYaml } from '../shared/yaml.js';
import { HttpError } from './errors.js';
import { refuseUnstorable } from './storable.js';

const LIMIT = '10mb';
const YAML_TYPES = ['text/yaml', 'application/yaml', 'application/x-yaml', 'text/x-yaml'];
const MAX_FIELDS = 10_000;

type Format = 'json' | 'yaml' | 'form';
const LABEL: Record<Format, string> = { json: 'JSON', yaml: 'YAML', form: 'form' };

// The text as sent (decoded by its charset); parsing is ours, with limits.
const text = express.text({ limit: LIMIT, type: () => true });
// `depth` is body-parser 2's (its types predate it); qs counts bracket levels below the top
// object, which is itself one level.
const formOptions = {
  limit: LIMIT,
  extended: true,
  parameterLimit: MAX_FIELDS,
  depth: BODY_LIMITS.maxDepth - 1,
};
const form = express.urlencoded(formOptions);

export const parseBody: RequestHandler = (req, res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) {
    req.body = undefined;
    return next();
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json'))
    return parseText(req, res, next, 'json', (t) => (t === '' ? {} : parseJson(t)));
  if (YAML_TYPES.includes(type)) return parseText(req, res, next, 'yaml', parseYaml);
  if (type === 'application/x-www-form-urlencoded') {
    return form(req, res, (err?: unknown) => {
      if (err) return next(formError(err));
      try {
        checkShape(req.body);
        refuseUnstorable(req.body, 'body');
        next();
      } catch (e) {
        next(bodyError('form', e));
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

function parseText(
  req: Request,
  res: Response,
  next: NextFunction,
  format: Format,
  parse: (text: string) => unknown,
): void {
  text(req, res, (err?: unknown) => {
    if (err) return next(err);
    try {
      req.body = parse(typeof req.body === 'string' ? req.body : '');
      refuseUnstorable(req.body, 'body');
      next();
    } catch (e) {
      next(bodyError(format, e));
    }
  });
}

/** 400 naming the format and what is wrong: a syntax error, or which limit was exceeded. */
function bodyError(format: Format, e: unknown): unknown {
  if (!(e instanceof ParseError)) return e;
  const message =
    e.context.limit === undefined
      ? `the ${LABEL[format]} body does not parse: ${e.message}`
      : `the ${LABEL[format]} body ${e.message}`;
  return new HttpError(400, message, { type: format, ...e.context });
}

// body-parser's own form errors, in words a client can act on.
function formError(err: unknown): unknown {
  const type = (err as { type?: string }).type;
  if (type === 'querystring.parse.rangeError')
    return bodyError('form', tooDeep(BODY_LIMITS.maxDepth));
  if (type === 'parameters.too.many')
    return new HttpError(413, `the form body has more than ${MAX_FIELDS} fields`, {
      type: 'form',
      limit: 'fields',
      max: MAX_FIELDS,
    });
  return err;
}
