// Unsubscribe links: a token sealed with the server's secrets key (AES-GCM, so it cannot be
// forged or altered) holding one project, one subscription and one e-mail, and bound to this
// purpose alone (a sealed credential does not open as a token, nor a token as anything else).
// It needs no sign-in: whoever holds the mail may take that address off that subscription,
// which is all it can do. Using it twice is harmless.
import { invalid } from '../errors.js';
import type { SecretBox } from '../model/secrets.js';

const PURPOSE = 'ursa:unsubscribe';

export interface UnsubscribeTarget {
  projectId: string;
  subscription: string;
  email: string;
}

/** The page of the link, at the site's root (outside the API: a page people open). */
export const unsubscribePath = (token: string): string =>
  `/unsubscribe/${encodeURIComponent(token)}`;

export function unsubscribeToken(box: SecretBox, t: UnsubscribeTarget): string {
  return box.encrypt(JSON.stringify([t.projectId, t.subscription, t.email]), PURPOSE);
}

/** The target of a token; 400 for anything that is not one of ours, intact. */
export function openUnsubscribeToken(box: SecretBox, token: string): UnsubscribeTarget {
  const bad = () =>
    invalid('this unsubscribe link is not valid: it may be cut short; copy the whole link', {
      field: 'token',
    });
  if (token.length > 2000) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(box.decrypt(token, PURPOSE));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((p) => typeof p === 'string'))
    throw bad();
  const [projectId, subscription, email] = parsed as [string, string, string];
  return { projectId, subscription, email };
}
