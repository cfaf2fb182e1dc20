// Grounding: which figures of an answer appear in no source (query results, the question…).
import { describe, expect, it } from 'vitest';
import { sourceNumbers, unverifiedNumbers } from '../src/engine/ai/grounding.js';

const sources = sourceNumbers([
  JSON.stringify({
    rows: [
      ['US', '1234567'],
      ['EU', '12.3456'],
      ['share', '0.18915'],
    ],
  }),
  'Flights in 2024?',
]);
const check = (answer: string) => unverifiedNumbers(answer, sources);

describe('unverifiedNumbers', () => {
  it('finds figures exactly, with thousands separators or rounded to what is shown', () => {
    expect(check('US had 1,234,567 and EU 12.35 (about 12.3, or 12).')).toEqual([]);
    expect(check('US had 1234567.')).toEqual([]);
  });

  it('reads K/M/B and words as scale, % as a ratio', () => {
    expect(check('US had 1.2M (1.23 million, 1,235K) flights.')).toEqual([]);
    expect(check('The share is 18.9% (19 percent).')).toEqual([]);
  });

  it('flags figures no source gives, once each', () => {
    expect(check('US had 1,300,000 flights and EU 13.5; again 13.5, and 2.5M.')).toEqual([
      '1,300,000',
      '13.5',
      '2.5M',
    ]);
    expect(check('The share is 25%.')).toEqual(['25%']);
  });

  it('ignores small whole numbers, the question’s numbers and code', () => {
    expect(check('The top 3 of 2024: see `SELECT … LIMIT 777`.')).toEqual([]);
    expect(check('```aql\nSELECT [x] LIMIT 999\n```\nDone.')).toEqual([]);
    expect(check('In 2025 there were more.')).toEqual(['2025']);
  });

  it('reads sources with thousands separators too', () => {
    expect(sourceNumbers(['There were 9,999 flights and 1,234,567.5 miles.'])).toEqual(
      expect.arrayContaining([9999, 1234567.5]),
    );
  });

  it('does not read digits inside words or identifiers as figures', () => {
    expect(check('Carrier B6 and route A320x are listed.')).toEqual([]);
  });
});
