// "Did you mean": the closest names by edit distance, case-insensitive.

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** Up to `n` candidates close enough to be plausible, best first. */
export function closest(name: string, candidates: string[], n: number): string[] {
  const target = name.toLowerCase();
  const scored = new Map<string, number>();
  for (const c of candidates) {
    const low = c.toLowerCase();
    const limit = Math.max(2, Math.floor(Math.max(target.length, low.length) / 3));
    const contains = low.includes(target) || target.includes(low);
    // The edit distance is at least the difference in length: skip hopeless candidates
    // (a 100,000-character name must not cost seconds).
    if (!contains && Math.abs(low.length - target.length) > limit) continue;
    // A candidate that contains the name (or the reverse) is a strong hint.
    const d = contains ? Math.abs(low.length - target.length) / 4 : distance(target, low);
    if (d <= limit && (!scored.has(c) || scored.get(c)! > d)) scored.set(c, d);
  }
  return [...scored.entries()]
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([c]) => c);
}
