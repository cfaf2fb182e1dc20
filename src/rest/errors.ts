// REST modules import the HTTP error shape from here; it lives in src/shared because the MCP
// transport answers in the same shape.
export { HttpError, STATUS_OF, toErrorBody, type ErrorBody } from '../shared/errors.js';
