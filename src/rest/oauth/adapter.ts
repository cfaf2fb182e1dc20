// Binds oidc-provider's adapter contract to the engine's storage (oidc_models table). The
// provider parses its own requests, so this is where the OAuth door's values meet the
// metadata database: an id or payload holding text it cannot store (NUL; see
// src/shared/storable-text.ts) is the client's invalid_request (400), not a server error.
import { errors, type Adapter, type AdapterFactory, type AdapterPayload } from 'oidc-provider';
import type { OidcModels, OidcPayload } from '../../engine/identity/oidc-adapter.js';
import { findUnstorable } from '../../shared/storable-text.js';

function refuse(value: unknown, field: string): void {
  const found = findUnstorable(value, field);
  if (found) throw new errors.InvalidRequest(found.message);
}

export function oidcAdapterFactory(models: OidcModels): AdapterFactory {
  return (name: string): Adapter => {
    const a = models.adapter(name);
    const id = (v: string) => (refuse(v, `the ${name} id`), v);
    return {
      upsert: (key, payload, expiresIn) => {
        refuse(payload, name);
        return a.upsert(id(key), payload as OidcPayload, expiresIn);
      },
      find: async (key) => (await a.find(id(key))) as AdapterPayload | undefined,
      findByUid: async (uid) => (await a.findByUid(id(uid))) as AdapterPayload | undefined,
      findByUserCode: async (code) =>
        (await a.findByUserCode(id(code))) as AdapterPayload | undefined,
      consume: (key) => a.consume(id(key)),
      destroy: (key) => a.destroy(id(key)),
      revokeByGrantId: (grantId) => a.revokeByGrantId(id(grantId)),
    };
  };
}
