// Which numbers of an answer appear in no source (query results, tool answers, the question,
// the conversation). A figure counts as found when some source number, rounded to the
// precision the answer shows (and scaled by its K/M/B or % suffix), gives it.

interface Figure {
  text: string;
  value: number;
  /** Half a unit of the last digit shown, in the figure's own scale. */
  tolerance: number;
  scale: number;
  percent: boolean;
}

const SCALES: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
};

const NUMBER =
  /(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(%|percent\b|k\b|thousand\b|mn\b|m\b|million\b|bn\b|b\b|billion\b))?/gi;

/** Small whole numbers are ranks, counts of listed rows, months and days: not checked. */
const SMALL = 10;

function figures(text: string): Figure[] {
  const out: Figure[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const digits = m[1]!.replace(/,/g, '');
    const suffix = (m[2] ?? '').toLowerCase();
    const value = Number(digits);
    if (!Number.isFinite(value)) continue;
    const decimals = digits.includes('.') ? digits.length - digits.indexOf('.') - 1 : 0;
    const percent = suffix === '%' || suffix === 'percent';
    out.push({
      text: m[0],
      value,
      tolerance: 0.5 * 10 ** -decimals,
      scale: SCALES[suffix] ?? 1,
      percent,
    });
  }
  return out;
}

/** The numbers of a source text, ready to compare (absolute values: signs are wording). */
export function sourceNumbers(texts: string[]): number[] {
  const set = new Set<number>();
  for (const t of texts) {
    // Plain numbers (query cells), then figures with thousands separators (a question's or an
    // earlier answer's "9,999"); a list such as "1,234" in JSON adds a harmless extra reading.
    for (const m of t.matchAll(/\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)) {
      const n = Number(m[0]);
      if (Number.isFinite(n)) set.add(n);
    }
    for (const m of t.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?/g))
      set.add(Number(m[0].replace(/,/g, '')));
  }
  return [...set].sort((a, b) => a - b);
}

/** Any n in the sorted list with lo ≤ n ≤ hi. */
function anyBetween(sorted: number[], lo: number, hi: number): boolean {
  let a = 0;
  let b = sorted.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (sorted[mid]! < lo) a = mid + 1;
    else b = mid;
  }
  return a < sorted.length && sorted[a]! <= hi;
}

/** Answer text without code (AQL shown in code spans and blocks is not a claim). */
function prose(answer: string): string {
  return answer.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`]*`/g, ' ');
}

export function unverifiedNumbers(answer: string, sources: number[]): string[] {
  const out: string[] = [];
  for (const f of figures(prose(answer))) {
    if (f.scale === 1 && !f.percent && Number.isInteger(f.value) && f.value <= SMALL) continue;
    // A shown figure may be rounded (half a unit either way) or cut (up to a unit below).
    const lo = f.value - f.tolerance * (1 + 1e-9);
    const hi = f.value + 2 * f.tolerance * (1 - 1e-9);
    const found =
      anyBetween(sources, lo * f.scale, hi * f.scale) ||
      // 12.5% may be the ratio 0.125 of a result.
      (f.percent && anyBetween(sources, lo / 100, hi / 100));
    if (!found && !out.includes(f.text.trim())) out.push(f.text.trim());
  }
  return out;
}
