// Binds oidc-provider's adapter contract to the engine's storage (oidc_models table).
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { OidcModels, OidcPayload } from '../../engine/identity/oidc-adapter.js';

export function oidcAdapterFactory(models: OidcModels): AdapterFactory {
  return (name: string): Adapter => {
    const a = models.adapter(name);
    return {
      upsert: (id, payload, expiresIn) => a.upsert(id, payload as OidcPayload, expiresIn),
      find: async (id) => (await a.find(id)) as AdapterPayload | undefined,
      findByUid: async (uid) => (await a.findByUid(uid)) as AdapterPayload | undefined,
      findByUserCode: async (code) => (await a.findByUserCode(code)) as AdapterPayload | undefined,
      consume: (id) => a.consume(id),
      destroy: (id) => a.destroy(id),
      revokeByGrantId: (grantId) => a.revokeByGrantId(grantId),
    };
  };
}
