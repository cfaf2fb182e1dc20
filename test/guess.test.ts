// Structure guess and prescription validation: pure engine code, no server. Every expected
// value below is written from the rules in docs/loading.md, not copied from output.
import { beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../src/engine/errors.js';
import { guessStructure, readCsv } from '../src/engine/data/guess.js';
import {
  DATA_TYPE_NAMES,
  DATA_TYPES,
  validatePrescription,
  type Column,
  type Prescription,
} from '../src/engine/data/prescription.js';

const guess = (text: string, fileName = 'data.csv', truncated = false) =>
  guessStructure(Buffer.from(text, 'utf8'), { fileName, truncated });

function col(p: Prescription, id: string): Column {
  const c = p.columns.find((x) => x.id === id);
  if (!c) throw new Error(`no column ${id} in ${p.columns.map((x) => x.id).join(',')}`);
  return c;
}

/** Runs fn, expects the engine's invalid error, returns it for message/context checks. */
async function invalidError(fn: () => unknown): Promise<EngineError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    expect((e as EngineError).kind).toBe('invalid');
    return e as EngineError;
  }
  throw new Error('expected an invalid error, nothing was thrown');
}

const FORMAT = {
  quote: '"',
  escape: '"',
  header: true,
  encoding: 'utf-8',
  bom: false,
} as const;

describe('readCsv (DuckDB, as the load reads)', () => {
  it('reads RFC 4180 quoting: delimiters, doubled quotes and line breaks inside quotes', async () => {
    const text = 'a,"b,c",d\r\n"say ""hi""","line1\nline2",x\n';
    expect(await readCsv(text, { delimiter: ',', quote: '"' })).toEqual([
      ['a', 'b,c', 'd'],
      ['say "hi"', 'line1\nline2', 'x'],
    ]);
  });

  it('skips blank lines, keeps a trailing empty field, refuses an unterminated quote', async () => {
    expect(await readCsv('a\n\n  \nb\n', { delimiter: ',', quote: '"' })).toEqual([['a'], ['b']]);
    expect(await readCsv('a,b,\n', { delimiter: ',', quote: '"' })).toEqual([['a', 'b', '']]);
    // The load cannot read a quote left open at the end of a whole file either: said at once.
    const open = await invalidError(() =>
      readCsv('a,"bc', { delimiter: ',', quote: '"' }, { fileName: 'open.csv' }),
    );
    expect(open.message).toMatch(/^the file "open\.csv" cannot be read as CSV: /);
    expect(open.message).not.toMatch(/ursa-guess|\/tmp/);
    expect(open.context).toMatchObject({ fileName: 'open.csv' });
    expect(await readCsv('"a",b\n', { delimiter: ',', quote: '' })).toEqual([['"a"', 'b']]); // no quoting
  });

  it('accepts CR, LF and CRLF line ends and other delimiters', async () => {
    expect(await readCsv('a;b\rc;d\r\ne;f', { delimiter: ';', quote: '"' })).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
    expect(await readCsv('1\t"x\ty"\n', { delimiter: '\t', quote: '"' })).toEqual([['1', 'x\ty']]);
  });
});

describe('delimiter and format', () => {
  it('detects a comma file', async () => {
    const p = await guess('a,b,c\nx,1,2\ny,3,4\n');
    expect(p.format).toEqual({ ...FORMAT, delimiter: ',' });
    expect(p.columns.map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('detects a semicolon file even when values hold commas (decimal commas stay text)', async () => {
    const p = await guess('name;price\nTea;1,5\nCoffee;2,25\n');
    expect(p.format.delimiter).toBe(';');
    expect(p.columns.map((c) => [c.id, c.dataType])).toEqual([
      ['name', 'string'],
      ['price', 'string'],
    ]);
  });

  it('detects tab and pipe files', async () => {
    expect((await guess('a\tb\n1\t2\n3\t4\n')).format.delimiter).toBe('\t');
    const pipe = await guess('a|b|c\n1|2|3\n');
    expect(pipe.format.delimiter).toBe('|');
    expect(pipe.data).toEqual([['1', '2', '3']]);
  });

  it('is not fooled by other candidates inside quoted fields', async () => {
    const p = await guess('id,text\n1,"a;b;c"\n2,"d;e"\n');
    expect(p.format.delimiter).toBe(',');
    expect(p.data).toEqual([
      ['1', 'a;b;c'],
      ['2', 'd;e'],
    ]);
  });

  it('keeps quoted delimiters, doubled quotes and newlines in sample rows, unquoted', async () => {
    const p = await guess('id,comment\n1,"a, b"\n2,"multi\nline"\n3,"say ""x"""\n');
    expect(p.data).toEqual([
      ['1', 'a, b'],
      ['2', 'multi\nline'],
      ['3', 'say "x"'],
    ]);
  });
});

describe('encoding', () => {
  it('records a UTF-8 BOM and does not let it leak into the first header', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const p = await guessStructure(Buffer.concat([bom, Buffer.from('id,näme\n1,å\n')]), {
      fileName: 'x.csv',
      truncated: false,
    });
    expect(p.format.bom).toBe(true);
    expect(p.columns.map((c) => [c.id, c.originalheader])).toEqual([
      ['id', 'id'],
      ['name', 'näme'],
    ]);
    expect((await guess('id,name\n1,a\n')).format.bom).toBe(false);
  });

  it('refuses invalid UTF-8 and says where', async () => {
    const bytes = Buffer.concat([Buffer.from('a,b\n'), Buffer.from([0xff]), Buffer.from(',1\n')]);
    const e = await invalidError(() =>
      guessStructure(bytes, { fileName: 'latin.csv', truncated: false }),
    );
    expect(e.message).toMatch(/must be UTF-8/);
    expect(e.context).toMatchObject({ fileName: 'latin.csv', encoding: 'utf-8', offset: 4 });
  });

  it('counts the BOM in the offset of an invalid byte', async () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0a, 0xc3, 0x28]); // C3 28: bad pair
    const e = await invalidError(() =>
      guessStructure(bytes, { fileName: 'x.csv', truncated: false }),
    );
    expect(e.context).toMatchObject({ offset: 5 });
  });

  it('refuses UTF-16 with a BOM and text with NUL bytes', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n', 'utf16le')]);
    expect(
      (await invalidError(() => guessStructure(utf16, { fileName: 'x.csv', truncated: false })))
        .message,
    ).toMatch(/UTF-16/);
    const nul = Buffer.from('a,b\n', 'utf16le');
    expect(
      (await invalidError(() => guessStructure(nul, { fileName: 'x.csv', truncated: false })))
        .message,
    ).toMatch(/NUL/);
  });

  it('does not mistake a truncated multi-byte character for bad UTF-8', async () => {
    const full = Buffer.from('city\nZürich\nMünchen\n');
    const cut = full.subarray(0, full.indexOf('ü', 13) + 1); // first byte of ü in München
    const p = await guessStructure(cut, { fileName: 'x.csv', truncated: true });
    expect(p.data).toEqual([['Zürich']]);
  });

  it('refuses an empty file', async () => {
    const e = await invalidError(() => guess('', 'empty.csv'));
    expect(e.message).toMatch(/no complete line/);
    expect(e.context).toMatchObject({ fileName: 'empty.csv' });
  });
});

describe('header detection', () => {
  it('treats a numeric first row as data and generates column names', async () => {
    const p = await guess('1,2.5,3\n4,5.5,6\n', 'numbers.csv');
    expect(p.format.header).toBe(false);
    expect(p.columns).toEqual([
      {
        id: 'column_1',
        originalheader: '',
        objectType: 'A',
        dataType: 'integer',
        label: 'Column 1',
      },
      {
        id: 'column_2',
        originalheader: '',
        objectType: 'F',
        dataType: 'number',
        label: 'Column 2',
      },
      {
        id: 'column_3',
        originalheader: '',
        objectType: 'F',
        dataType: 'integer',
        label: 'Column 3',
      },
    ]);
    expect(p.data).toEqual([
      ['1', '2.5', '3'],
      ['4', '5.5', '6'],
    ]);
    expect(p.primarykey).toBe('column_1');
  });

  it('reads a first row of names above text as a header', async () => {
    const p = await guess('city,country\nParis,France\nRome,Italy\n');
    expect(p.format.header).toBe(true);
    expect(p.data).toHaveLength(2);
  });

  it('reads a first row whose values recur below as data', async () => {
    const p = await guess('red,small\nblue,large\nred,large\n');
    expect(p.format.header).toBe(false);
    expect(p.data).toHaveLength(3);
  });

  it('needs distinct, non-empty header cells', async () => {
    expect((await guess('a,a\n1,2\n')).format.header).toBe(false);
    expect((await guess('a,\n1,2\n')).format.header).toBe(false);
  });
});

describe('data types', () => {
  const text = [
    'city,x,flag,bit,d_iso,d_slash,d_dot,d_us,d_eu,ts,mixed,amount_text,zip,sparse,empty,big',
    'Oslo,1.5,true,0,2024-01-31,2024/1/31,31.01.2024,01/31/2024,31/01/2024,2024-01-31T10:20,2024-01-31,"1,234",007,5,,1',
    'Rome,-2e3,No,1,2024-02-29,2024/02/29,29.2.2024,2/29/2024,29/02/2024,2024-02-29 10:20:30.123+01:00,2024-02-29 10:00,"2,000",012,,,12345678901234567890',
    'Bern,.5,1,1,2023-12-01,2023/12/01,01.12.2023,12/01/2023,01/12/2023,2023-12-01T00:00:00Z,2023-12-01,"3,5",100,7,,2',
  ].join('\n');
  let p: Prescription;
  beforeAll(async () => {
    p = await guess(text);
  });
  const typeOf = (id: string) => [col(p, id).dataType, col(p, id).dateFormat];

  it('detects integer, number (sign, exponent, leading point) and boolean', async () => {
    expect(typeOf('x')).toEqual(['number', undefined]);
    expect(typeOf('flag')).toEqual(['boolean', undefined]);
    expect(typeOf('bit')).toEqual(['integer', undefined]); // 0/1 only: a number, not a boolean
    expect(typeOf('sparse')).toEqual(['integer', undefined]); // empty cells are nulls
  });

  it('detects ISO dates without a format and other date layouts with their strptime format', async () => {
    expect(typeOf('d_iso')).toEqual(['date', undefined]);
    expect(typeOf('d_slash')).toEqual(['date', '%Y/%m/%d']);
    expect(typeOf('d_dot')).toEqual(['date', '%d.%m.%Y']);
    expect(typeOf('d_us')).toEqual(['date', '%m/%d/%Y']);
    expect(typeOf('d_eu')).toEqual(['date', '%d/%m/%Y']); // 31/01: the month cannot come first
  });

  it('detects ISO datetimes (T or space, seconds, fraction, zone), also mixed with dates', async () => {
    expect(typeOf('ts')).toEqual(['datetime', undefined]);
    expect(typeOf('mixed')).toEqual(['datetime', undefined]);
  });

  it('keeps thousands separators, leading zeros, huge integers and empty columns as strings', async () => {
    expect(typeOf('amount_text')).toEqual(['string', undefined]);
    expect(typeOf('zip')).toEqual(['string', undefined]);
    expect(typeOf('big')).toEqual(['string', undefined]);
    expect(typeOf('empty')).toEqual(['string', undefined]);
    expect(typeOf('city')).toEqual(['string', undefined]);
  });

  it('rejects impossible calendar dates and times', async () => {
    const q = await guess(
      'bad_date,bad_time,no_leap,ok\n2024-02-30,2024-01-31 25:00,2023-02-29,1\n2024-01-01,2024-01-31 10:00,2023-02-28,2\n',
    );
    expect(col(q, 'bad_date').dataType).toBe('string');
    expect(col(q, 'bad_time').dataType).toBe('string');
    expect(col(q, 'no_leap').dataType).toBe('string');
    expect(col(q, 'ok').dataType).toBe('integer');
  });

  it('prefers a US month/day reading when both fit', async () => {
    const q = await guess('day,n\n01/02/2024,1\n03/04/2024,2\n');
    expect([col(q, 'day').dataType, col(q, 'day').dateFormat]).toEqual(['date', '%m/%d/%Y']);
  });
});

describe('object types', () => {
  let flights: Prescription;
  beforeAll(async () => {
    flights = await guess(
      [
        'flight_id,carrier,carrier_name,origin_code,origin_name,year,distance,delay,AirlineID,Store No,product_key,zip_code',
        '10,AA,American,JFK,Kennedy,2024,1200.5,5,1,7,100,10001',
        '11,DL,Delta,LAX,Los Angeles,2024,800,0,2,7,101,10002',
        '12,AA,American,JFK,Kennedy,2023,1200.5,-3,1,8,100,10001',
      ].join('\n'),
      'Flights.csv',
    );
  });
  const role = (id: string) => [col(flights, id).objectType, col(flights, id).labelOf];

  it('makes plain numbers facts and identifier-like numbers attributes', async () => {
    expect(role('distance')).toEqual(['F', undefined]);
    expect(role('delay')).toEqual(['F', undefined]);
    expect(role('flight_id')).toEqual(['A', undefined]);
    expect(role('airlineid')).toEqual(['A', undefined]); // camelCase AirlineID ends in "id"
    expect(role('store_no')).toEqual(['A', undefined]);
    expect(role('product_key')).toEqual(['A', undefined]);
    expect(role('zip_code')).toEqual(['A', undefined]);
    expect(role('year')).toEqual(['A', undefined]);
  });

  it('pairs labels with the identifier they describe', async () => {
    expect(role('carrier')).toEqual(['A', undefined]);
    expect(role('carrier_name')).toEqual(['L', 'carrier']);
    expect(role('origin_code')).toEqual(['A', undefined]);
    expect(role('origin_name')).toEqual(['L', 'origin_code']);
    expect(flights.primarykey).toBe('flight_id');
    expect(flights.clustername).toBe('flights');
    expect(() => validatePrescription(flights)).not.toThrow();
  });

  it('makes the first column an attribute when it holds distinct integers', async () => {
    expect(col(await guess('amount,label\n5,a\n7,b\n'), 'amount').objectType).toBe('A');
    expect(col(await guess('amount,label\n5,a\n5,b\n'), 'amount').objectType).toBe('F');
    expect(col(await guess('label,amount\na,5\nb,7\n'), 'amount').objectType).toBe('F');
  });

  it('makes year-like integers named year attributes, other years facts', async () => {
    const p = await guess('region,year,fiscal_year,sales\nN,2023,2024,10\nS,2023,2024,12\n');
    expect(col(p, 'year').objectType).toBe('A');
    expect(col(p, 'fiscal_year').objectType).toBe('A');
    expect(col(p, 'sales').objectType).toBe('F');
    expect(col(await guess('region,year\nN,5\nS,1850\n'), 'year').objectType).toBe('F');
  });

  it('makes dates, datetimes, booleans and strings attributes', async () => {
    const p = await guess(
      'd,t,b,s\n2024-01-01,2024-01-01 10:00,true,x\n2024-01-02,2024-01-02 11:00,false,y\n',
    );
    expect(p.columns.map((c) => c.objectType)).toEqual(['A', 'A', 'A', 'A']);
  });

  it('labels a name column of a numeric id (country_id + country)', async () => {
    const p = await guess('country_id,country,population\n1,Norway,5\n2,Italy,59\n1,Norway,5\n');
    expect([col(p, 'country').objectType, col(p, 'country').labelOf]).toEqual(['L', 'country_id']);
    expect(col(p, 'population').objectType).toBe('F');
    expect(p.primarykey).toBe(''); // country_id repeats, the label and the fact cannot be keys
  });

  it('does not pair when one identifier value has two label values', async () => {
    const p = await guess('carrier,carrier_name\nAA,American\nAA,Americana\nDL,Delta\n');
    expect(col(p, 'carrier_name').objectType).toBe('A');
    expect(col(p, 'carrier_name').labelOf).toBeUndefined();
  });

  it('pairs "name" with "id", and attaches every label to the most identifier-like column', async () => {
    const p = await guess('id,name\n1,Alice\n2,Bob\n');
    expect([col(p, 'name').objectType, col(p, 'name').labelOf]).toEqual(['L', 'id']);
    const q = await guess(
      'carrier,carrier_code,carrier_name\nAmerican,AA,American Airlines\nDelta,DL,Delta Air Lines\n',
    );
    expect(q.columns.map((c) => [c.id, c.objectType, c.labelOf])).toEqual([
      ['carrier', 'L', 'carrier_code'],
      ['carrier_code', 'A', undefined],
      ['carrier_name', 'L', 'carrier_code'],
    ]);
    expect(q.primarykey).toBe('carrier_code');
  });

  it('never makes a number a label', async () => {
    const p = await guess('region_code,region_name\nN,1\nS,2\n');
    expect(col(p, 'region_name').objectType).toBe('F');
    expect(col(p, 'region_name').labelOf).toBeUndefined();
  });
});

describe('primary key', () => {
  it('prefers "id" over an earlier unique column', async () => {
    expect((await guess('sku,id,name\nA1,1,x\nA2,2,y\n', 'items.csv')).primarykey).toBe('id');
  });

  it('prefers <cluster>_id (singular too) over another *_id', async () => {
    expect(
      (await guess('customer_id,order_id,total\n1,10,5.5\n2,11,6.5\n', 'orders.csv')).primarykey,
    ).toBe('order_id');
  });

  it('skips columns with repeated or empty values', async () => {
    expect((await guess('id,code,name\n1,A,x\n1,B,y\n')).primarykey).toBe('code');
    expect((await guess('id,code\n1,A\n,B\n')).primarykey).toBe('code');
  });

  it('falls back to the first unique attribute, or none', async () => {
    expect((await guess('city,visits\nOslo,3\nRome,3\n')).primarykey).toBe('city');
    expect((await guess('a,b\nx,1\nx,1\n')).primarykey).toBe('');
    expect((await guess('amount,qty\n1.5,2\n2.5,2\n')).primarykey).toBe(''); // facts are never keys
  });
});

describe('names', () => {
  it('slugs headers into ids, keeps labels and original headers, deduplicates', async () => {
    const header =
      'Flight Date,Ünïcödé Nämé,2024 Sales,id,ID,Straße,"  spaced  ",---,A very long header that keeps going and going well past sixty-three characters';
    const p = await guess(`${header}\n2024-01-01,a,1,1,1,b,c,d,e\n2024-01-02,b,2,2,2,c,d,e,f\n`);
    expect(p.format.header).toBe(true);
    expect(p.columns.map((c) => c.id)).toEqual([
      'flight_date',
      'unicode_name',
      'c_2024_sales',
      'id',
      'id_2',
      'strasse',
      'spaced',
      'column_8',
      'a_very_long_header_that_keeps_going_and_going_well_past_sixty_t',
    ]);
    expect(col(p, 'unicode_name').label).toBe('Ünïcödé Nämé');
    expect(col(p, 'spaced')).toMatchObject({ originalheader: '  spaced  ', label: 'spaced' });
    expect(col(p, 'column_8').label).toBe('---');
  });

  it('says machine-named headers in words; headers people wrote stay as written', async () => {
    const p = await guess(
      'order_id,unitPrice,product_sku,Region Name,amount,at-zone\n1,2.5,A,EU,3,x\n2,3.5,B,US,4,y\n',
    );
    expect(p.columns.map((c) => c.label)).toEqual([
      'Order ID',
      'Unit Price',
      'Product SKU',
      'Region Name',
      'amount',
      'At Zone',
    ]);
  });

  it('derives the cluster name from the file name', async () => {
    const name = async (f: string) => (await guess('a,b\nx,1\n', f)).clustername;
    expect(await name('Flights 2024.csv')).toBe('flights_2024');
    expect(await name('uploads/2024 Sales.CSV')).toBe('c_2024_sales');
    expect(await name('data.csv.gz')).toBe('data');
    expect(await name('Ümlaut-Report.tsv')).toBe('umlaut_report');
    expect(await name('.csv')).toBe('dataset');
  });
});

describe('sample rows and truncation', () => {
  it('ignores a possibly cut last line only when the sample is truncated', async () => {
    const text = 'id,name\n1,a\n2,b\n3,c';
    expect((await guess(text, 'x.csv', true)).data).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
    expect((await guess(text, 'x.csv', false)).data).toHaveLength(3);
    expect((await guess(`${text}\n`, 'x.csv', true)).data).toHaveLength(3); // ends on a line break
    expect((await guess(`${text}\n  `, 'x.csv', true)).data).toHaveLength(3); // a cut blank line
  });

  it('drops a truncated quoted field that spans lines', async () => {
    const p = await guess('id,note\n1,"x"\n2,"multi\nline', 'x.csv', true);
    expect(p.data).toEqual([['1', 'x']]);
  });

  it('returns the first 10 data rows exactly as in the file, padded to the column count', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `${i + 1}, spaced ${i + 1}`);
    const p = await guess(`id,note\n${rows.join('\n')}\n`);
    expect(p.data).toHaveLength(10);
    expect(p.data[0]).toEqual(['1', ' spaced 1']);
    expect(p.data[9]).toEqual(['10', ' spaced 10']);
    const ragged = await guess('a,b,c\n1,2,3\n4,5\n6,7,8,9\n');
    expect(ragged.data).toEqual([
      ['1', '2', '3'],
      ['4', '5', ''],
      ['6', '7', '8'],
    ]);
  });

  it('guesses a 1 MB truncated sample (its speed: npm run bench:guess)', async () => {
    const lines = ['id,name,amount,when,flag'];
    for (let i = 0; i < 30000; i++)
      lines.push(
        `${i},"name ${i % 100}",${(i * 1.5).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')} 10:00,${i % 2 ? 'yes' : 'no'}`,
      );
    const sample = Buffer.from(lines.join('\n')).subarray(0, 1_000_000);
    const p = await guessStructure(sample, { fileName: 'big.csv', truncated: true });
    expect(p.columns.map((c) => c.dataType)).toEqual([
      'integer',
      'string',
      'number',
      'datetime',
      'boolean',
    ]);
  });
});

describe('validatePrescription', () => {
  const base = (): Prescription => ({
    clustername: 'flights',
    primarykey: 'flight_id',
    columns: [
      {
        id: 'flight_id',
        originalheader: 'Flight ID',
        objectType: 'A',
        dataType: 'integer',
        label: 'Flight ID',
      },
      {
        id: 'carrier',
        originalheader: 'Carrier',
        objectType: 'A',
        dataType: 'string',
        label: 'Carrier',
      },
      {
        id: 'carrier_name',
        originalheader: 'Carrier Name',
        objectType: 'L',
        dataType: 'string',
        label: 'Carrier Name',
        labelOf: 'carrier',
      },
      {
        id: 'origin',
        originalheader: 'Origin',
        objectType: 'A',
        dataType: 'string',
        label: 'Origin',
        reference: 'airports',
      },
      {
        id: 'flight_date',
        originalheader: 'Date',
        objectType: 'A',
        dataType: 'date',
        label: 'Date',
        dateFormat: '%d.%m.%Y',
      },
      {
        id: 'distance',
        originalheader: 'Distance',
        objectType: 'F',
        dataType: 'number',
        label: 'Distance',
      },
    ],
    format: {
      delimiter: ',',
      quote: '"',
      escape: '"',
      header: true,
      encoding: 'utf-8',
      bom: false,
    },
  });
  /** `base()` changed by `edit`, validated: the error it raises. */
  const failure = async (edit: (p: Prescription) => void) => {
    const p = base();
    edit(p);
    return invalidError(() => validatePrescription(p));
  };

  it('accepts a valid prescription with or without sample data', async () => {
    expect(validatePrescription(base())).toEqual(base());
    const withData = { ...base(), data: [['1', 'AA', 'American', 'JFK', '01.02.2024', '12.5']] };
    expect(validatePrescription(withData).data).toEqual(withData.data);
    expect(validatePrescription({ ...base(), primarykey: '' }).primarykey).toBe('');
  });

  it('lists the data types with a meaning each', async () => {
    expect(DATA_TYPES.map((t) => t.name)).toEqual([...DATA_TYPE_NAMES]);
    expect(DATA_TYPE_NAMES).toEqual(['string', 'integer', 'number', 'date', 'datetime', 'boolean']);
    for (const t of DATA_TYPES) expect(t.meaning.length).toBeGreaterThan(10);
  });

  it('refuses a duplicate column id', async () => {
    const e = await failure((p) => (p.columns[5]!.id = 'carrier'));
    expect(e.message).toMatch(/duplicate column id "carrier"/);
    expect(e.context).toEqual({
      field: 'columns.5.id',
      value: 'carrier',
      duplicateOf: 'columns.1.id',
    });
  });

  it('refuses an unknown column id as primary key or labelOf', async () => {
    const pk = await failure((p) => (p.primarykey = 'nope'));
    expect(pk.message).toMatch(/primary key "nope" is not a column id/);
    expect(pk.context).toEqual({
      field: 'primarykey',
      value: 'nope',
      known: ['flight_id', 'carrier', 'carrier_name', 'origin', 'flight_date', 'distance'],
    });
    const label = await failure((p) => (p.columns[2]!.labelOf = 'nope'));
    expect(label.context).toMatchObject({ field: 'columns.2.labelOf', value: 'nope' });
  });

  it('refuses bad types and bad ids with the path of each issue', async () => {
    const bad = async (edit: (p: Record<string, unknown>, c: Record<string, unknown>) => void) => {
      const p = base() as unknown as Record<string, unknown>;
      edit(p, (p.columns as Record<string, unknown>[])[5]!);
      return invalidError(() => validatePrescription(p));
    };
    const dt = await bad((_, c) => (c.dataType = 'float'));
    expect(dt.message).toMatch(
      /^invalid prescription: columns\.5\.dataType: must be one of string, integer/,
    );
    expect(dt.context).toEqual({
      field: 'columns',
      issues: [{ path: 'columns.5.dataType', message: expect.stringMatching(/must be one of/) }],
    });
    expect((await bad((_, c) => (c.objectType = 'X'))).message).toMatch(/columns\.5\.objectType/);
    expect((await bad((_, c) => (c.id = 'Distance.km'))).message).toMatch(
      /columns\.5\.id: must start with a-z/,
    );
    expect((await bad((p) => (p.clustername = 'Flights'))).message).toMatch(/clustername/);
    expect((await bad((_, c) => (c.typo = 1))).message).toMatch(/columns\.5/);
    expect(
      (await bad((p) => ((p.format as Record<string, unknown>).encoding = 'latin1'))).message,
    ).toMatch(/format\.encoding/);
  });

  it('refuses a primary key that is not an attribute', async () => {
    const e = await failure((p) => (p.primarykey = 'distance'));
    expect(e.message).toMatch(/^primary key "distance" is not an attribute/);
    expect(e.context).toEqual({ field: 'primarykey', value: 'distance', objectType: 'F' });
    const label = await failure((p) => (p.primarykey = 'carrier_name'));
    expect(label.context).toEqual({ field: 'primarykey', value: 'carrier_name', objectType: 'L' });
  });

  it('refuses a primary key of another type than string, integer or date', async () => {
    const e = await failure((p) => {
      p.columns[5]!.objectType = 'A';
      p.primarykey = 'distance';
    });
    expect(e.message).toMatch(/primary key "distance" has dataType "number"/);
    expect(e.context).toEqual({
      field: 'primarykey',
      value: 'distance',
      dataType: 'number',
      allowed: ['string', 'integer', 'date'],
    });
    expect(validatePrescription({ ...base(), primarykey: 'flight_date' }).primarykey).toBe(
      'flight_date',
    );
  });

  it('refuses labelOf naming a non-attribute or the label itself', async () => {
    const fact = await failure((p) => (p.columns[2]!.labelOf = 'distance'));
    expect(fact.message).toMatch(/not an attribute/);
    expect(fact.context).toEqual({
      field: 'columns.2.labelOf',
      value: 'distance',
      column: 'carrier_name',
      objectType: 'F',
    });
    const self = await failure((p) => (p.columns[2]!.labelOf = 'carrier_name'));
    expect(self.message).toMatch(/itself/);
    expect(self.context).toEqual({
      field: 'columns.2.labelOf',
      value: 'carrier_name',
      column: 'carrier_name',
    });
  });

  it('refuses a label without labelOf, and labelOf on a non-label', async () => {
    const e = await failure((p) => delete p.columns[2]!.labelOf);
    expect(e.message).toMatch(/label "carrier_name" needs labelOf/);
    expect(e.context).toEqual({ field: 'columns.2.labelOf', column: 'carrier_name' });
    const onAttr = await failure((p) => (p.columns[1]!.labelOf = 'flight_id'));
    expect(onAttr.context).toEqual({
      field: 'columns.1.labelOf',
      value: 'flight_id',
      column: 'carrier',
      objectType: 'A',
    });
  });

  it('refuses a fact that is not integer or number', async () => {
    const e = await failure((p) => (p.columns[5]!.dataType = 'string'));
    expect(e.message).toMatch(/fact "distance" has dataType "string"/);
    expect(e.context).toEqual({
      field: 'columns.5.dataType',
      value: 'string',
      column: 'distance',
      allowed: ['integer', 'number'],
    });
  });

  it('refuses a reference on a non-attribute', async () => {
    const e = await failure((p) => (p.columns[5]!.reference = 'airports'));
    expect(e.message).toMatch(/only attributes/);
    expect(e.context).toEqual({
      field: 'columns.5.reference',
      value: 'airports',
      column: 'distance',
      objectType: 'F',
    });
  });

  it('refuses an empty column list', async () => {
    const e = await failure((p) => {
      p.columns = [];
      p.primarykey = '';
    });
    expect(e.message).toBe('invalid prescription: columns: a dataset needs at least one column');
    expect(e.context).toEqual({
      field: 'columns',
      issues: [{ path: 'columns', message: 'a dataset needs at least one column' }],
    });
  });

  it('refuses a delimiter equal to the quote character', async () => {
    const e = await failure((p) => (p.format.delimiter = '"'));
    expect(e.context).toEqual({ field: 'format.delimiter', value: '"' });
  });
});
