// What a member below MD Admin may write in the model: their own subscriptions and alerts,
// addressed to themselves only (docs/delivery.md). Everything else in the model needs MD Admin.
// A subscription of theirs lists them alone; an alert mails them alone and posts no webhook
// (its secret is a credentials object, an MD Admin's). They set no ACL, and change or delete
// only what they created.

export const OWN_DELIVERY_TYPES: readonly string[] = ['subscription', 'alert'];

/** Why `email` may not write this as their own, or null when they may. */
export function ownDeliveryProblem(
  email: string,
  type: string,
  def: unknown,
  acl: unknown,
): string | null {
  if (!OWN_DELIVERY_TYPES.includes(type))
    return `a member below MD Admin writes only their own subscriptions and alerts, not a ${type}`;
  if (Array.isArray(acl) && acl.length)
    return 'a member below MD Admin cannot set an acl on their subscription or alert';
  const d = (typeof def === 'object' && def !== null ? def : {}) as Record<string, unknown>;
  const self = (list: unknown) =>
    list === undefined ||
    (Array.isArray(list) &&
      list.every((e) => typeof e === 'string' && e.trim().toLowerCase() === email));
  if (type === 'subscription' && !self(d.recipients))
    return `a member below MD Admin subscribes only themself: recipients must be ["${email}"]`;
  if (type === 'alert') {
    if (!self(d.email))
      return `a member below MD Admin alerts only themself: email must be ["${email}"]`;
    if (d.webhook !== undefined)
      return 'a webhook needs an MD Admin (it signs with a credentials object)';
  }
  return null;
}
