// A value axis that ends above the data (and below it, for negatives) on round ticks, so the
// tallest bar never touches the frame and the ticks read 0, 10K, 20K, 30K, 40K.

export interface ValueAxis {
  min: number;
  max: number;
  interval: number;
}

const round = (n: number) => Number(n.toPrecision(12));

/** Round ticks about `count` apart covering lo…hi (and 0), with room past the extremes. */
export function niceAxis(lo: number, hi: number, count = 5): ValueAxis {
  const min0 = Math.min(0, lo);
  const max0 = Math.max(0, hi);
  if (min0 === max0) return { min: 0, max: 1, interval: 0.2 };
  const raw = (max0 - min0) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const interval = round([1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw)!);
  // Strictly past the data: a bar of 30,000 on an axis of 30,000 reads as cut off.
  let max = round(Math.ceil(max0 / interval) * interval);
  if (hi > 0 && max <= hi) max = round(max + interval);
  let min = round(Math.floor(min0 / interval) * interval);
  if (lo < 0 && min >= lo) min = round(min - interval);
  return { min, max, interval };
}
