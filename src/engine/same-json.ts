// Whether two JSON documents are the same, whatever the order of their objects' keys:
// PostgreSQL's jsonb does not keep key order, so a document read back may list its keys
// differently from the one written (schema-pg.ts). Arrays keep their order.
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_key, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([p], [q]) =>
            p < q ? -1 : p > q ? 1 : 0,
          ),
        )
      : x,
  );
