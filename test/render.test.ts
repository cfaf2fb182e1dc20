import { describe, it, expect } from 'vitest';
import { tabularFromList, toDelimited } from '../src/shared/delimited.js';
import { renderApiIndex, renderResourcePage } from '../src/http/render/html.js';
import * as kit from '../src/shared/html.js';

const API = '/api/v1';

describe('toDelimited (CSV)', () => {
  it('writes a header and CRLF-terminated rows', () => {
    expect(toDelimited(['a', 'b'], [[1, 'x']], ',')).toBe('a,b\r\n1,x\r\n');
  });

  it('quotes fields containing the separator, quotes, CR or LF and doubles inner quotes', () => {
    const out = toDelimited(['v'], [['a,b'], ['say "hi"'], ['l1\nl2'], ['r\rx'], ['plain']], ',');
    expect(out).toBe('v\r\n"a,b"\r\n"say ""hi"""\r\n"l1\nl2"\r\n"r\rx"\r\nplain\r\n');
  });

  it('quotes header names too', () => {
    expect(toDelimited(['a,b', 'c'], [], ',')).toBe('"a,b",c\r\n');
  });

  it('renders null/undefined as empty fields and formats other types', () => {
    const date = new Date('2024-05-01T12:00:00.000Z');
    const row = [null, undefined, true, false, 1.5, date, [1, 2], { k: 'v' }];
    const cols = ['n', 'u', 't', 'f', 'num', 'd', 'arr', 'obj'];
    expect(toDelimited(cols, [row], ',').split('\r\n')[1]).toBe(
      ',,true,false,1.5,2024-05-01T12:00:00.000Z,"[1,2]","{""k"":""v""}"',
    );
  });

  it('pads short rows so every line has one field per column', () => {
    expect(toDelimited(['a', 'b', 'c'], [[1]], ',')).toBe('a,b,c\r\n1,,\r\n');
  });
});

describe('toDelimited (TSV)', () => {
  it('uses tabs and LF, quoting on tabs but not on commas', () => {
    const out = toDelimited(
      ['a', 'b'],
      [
        ['x,y', 't\tab'],
        [null, 'q"'],
      ],
      '\t',
    );
    expect(out).toBe('a\tb\nx,y\t"t\tab"\n\t"q"""\n');
    expect(out).not.toContain('\r');
  });
});

describe('formula-injection guard', () => {
  const cell = (v: unknown) => toDelimited(['c'], [[v]], ',').split('\r\n')[1];

  it.each(['=SUM(A1:A2)', '+cmd', '-cmd', '@SUM(1)', "-2+3+cmd|' /C calc'!A0"])(
    'prefixes %s with a quote',
    (v) => {
      expect(cell(v)).toBe(`'${v}`);
    },
  );

  it.each(['-5', '+3', '-1.25', '-1e3', '-', 'a=b', 'mail@example.com'])('leaves %s alone', (v) => {
    expect(cell(v)).toBe(v);
  });

  it('leaves real numbers alone', () => {
    expect(cell(-5)).toBe('-5');
  });

  it('guards before quoting', () => {
    expect(cell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });

  it('guards header names', () => {
    expect(toDelimited(['=evil'], [], ',')).toBe("'=evil\r\n");
  });
});

describe('tabularFromList', () => {
  it('unions keys in first-seen order, drops link, leaves gaps empty', () => {
    const t = tabularFromList([
      { id: 1, name: 'a', link: [{ rel: 'self', href: '/x' }] },
      { id: 2, extra: true, name: 'b' },
    ]);
    expect(t.columns).toEqual(['id', 'name', 'extra']);
    expect(t.rows[0]?.slice(0, 2)).toEqual([1, 'a']);
    expect(t.rows[0]?.[2] ?? null).toBeNull();
    expect(t.rows[1]).toEqual([2, 'b', true]);
    expect(toDelimited(t.columns, t.rows, ',')).toBe('id,name,extra\r\n1,a,\r\n2,b,true\r\n');
  });

  it('does not read inherited properties for missing keys', () => {
    const t = tabularFromList([{ constructor: 'x' }, {}]);
    expect(toDelimited(t.columns, t.rows, ',')).toBe('constructor\r\nx\r\n\r\n');
  });

  it('handles an empty list', () => {
    expect(tabularFromList([])).toEqual({ columns: [], rows: [] });
  });
});

describe('the html template tag', () => {
  it('escapes the five significant characters in every interpolation', () => {
    expect(String(kit.html`<p title="${`"'`}">${`<a href="x">'&'</a>`}</p>`)).toBe(
      '<p title="&quot;&#39;">&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;</p>',
    );
  });

  it('keeps nested templates and raw() markup, joins lists, drops null, undefined and false', () => {
    const items = ['<a>', 'b'].map((t) => kit.html`<li>${t}</li>`);
    expect(String(kit.html`<ul>${items}</ul>${null}${undefined}${false}${0}`)).toBe(
      '<ul><li>&lt;a&gt;</li><li>b</li></ul>0',
    );
    expect(String(kit.html`<div>${kit.raw('<b>trusted</b>')}</div>`)).toBe(
      '<div><b>trusted</b></div>',
    );
  });

  it('cannot be fooled by an object posing as markup', () => {
    const fake = { toString: () => '<script>x</script>' } as unknown as kit.Html;
    expect(String(kit.html`${fake}`)).toBe('&lt;script&gt;x&lt;/script&gt;');
  });
});

const page = (over: Partial<Parameters<typeof renderResourcePage>[0]> = {}) =>
  renderResourcePage({
    title: 'Project',
    data: {},
    path: `${API}/projects/42`,
    apiBase: API,
    formats: ['json', 'yaml'],
    ...over,
  }).html;

describe('renderResourcePage', () => {
  it('is a complete, self-contained HTML5 document with landmarks', () => {
    const html = page();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('name="viewport"');
    expect(html).toMatch(/<style>[\s\S]+<\/style>/);
    for (const tag of ['header', 'nav', 'main']) expect(html).toContain(`<${tag}`);
    expect(html).not.toMatch(/<link\b|\bsrc=|@import|url\(/);
    expect(html).toContain(`<a class="brand" href="${API}">Ursa</a>`);
  });

  it('escapes everything taken from data, title, path and user', () => {
    const evil = '<script>alert(1)</script>';
    const html = page({
      title: evil,
      user: evil,
      path: `${API}/${evil}`,
      data: { [evil]: evil, list: [{ [evil]: evil }], nested: { deep: [evil] } },
    });
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('renders link arrays as anchors with rel and title/id', () => {
    const html = page({
      data: {
        link: [
          { rel: 'self', href: `${API}/projects/42`, title: 'My project' },
          { rel: 'reports', href: `${API}/projects/42/reports`, id: 'r-7' },
          { rel: 'evil', href: 'javascript:alert(1)', title: 'click' },
        ],
      },
    });
    expect(html).toMatch(
      new RegExp(`<span class="rel">self</span><a href="${API}/projects/42">My project</a>`),
    );
    expect(html).toContain(`<a href="${API}/projects/42/reports">r-7</a>`);
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('<span class="rel">evil</span>click');
  });

  it('renders link arrays inside list tables', () => {
    const html = page({
      data: [
        { id: 1, link: [{ rel: 'self', href: `${API}/projects/1` }] },
        { id: 2, name: 'b' },
      ],
    });
    expect(html).toContain(
      '<th scope="col">id</th><th scope="col">link</th><th scope="col">name</th>',
    );
    expect(html).toContain(`<a href="${API}/projects/1">${API}/projects/1</a>`);
  });

  it('makes strings pointing into the API clickable, and only those', () => {
    const html = page({
      data: { parent: `${API}/projects`, root: API, other: '/elsewhere', near: '/api/v10/x' },
    });
    expect(html).toContain(`<a href="${API}/projects">${API}/projects</a>`);
    expect(html).toContain(`<a href="${API}">${API}</a>`);
    expect(html).not.toContain('href="/elsewhere"');
    expect(html).not.toContain('href="/api/v10/x"');
  });

  it('builds clickable, URL-safe breadcrumbs without double-encoding', () => {
    const html = page({ path: `${API}/projects/a%20b/x?y?page=2` });
    expect(html).toContain(`<a href="${API}/projects">projects</a>`);
    expect(html).toContain(`<a href="${API}/projects/a%20b">a b</a>`);
    expect(html).toContain(`<a href="${API}/projects/a%20b/x" aria-current="page">x</a>`);
    expect(page({ path: `${API}/a b` })).toContain(`href="${API}/a%20b"`);
  });

  it('offers json and yaml always, csv and tsv only when available', () => {
    const plain = page();
    expect(plain).toContain('href="?format=json"');
    expect(plain).toContain('href="?format=yaml"');
    expect(plain).not.toContain('format=csv');
    expect(plain).not.toContain('format=tsv');
    const list = page({ formats: ['json', 'yaml', 'csv', 'tsv'] });
    expect(list).toContain('href="?format=csv"');
    expect(list).toContain('href="?format=tsv"');
  });

  it('keeps other query parameters in format links', () => {
    expect(page({ path: `${API}/projects?page=2&format=html` })).toContain(
      'href="?page=2&amp;format=json"',
    );
  });

  it('shows login link or the signed-in user with a logout form', () => {
    expect(page()).toContain('href="/auth/login"');
    const html = page({ user: 'ann@example.com' });
    expect(html).toContain('ann@example.com');
    expect(html).toMatch(/<form method="post" action="\/auth\/logout">/);
    expect(html).not.toContain('href="/auth/login"');
  });

  it('renders scalars and empty values readably', () => {
    const html = page({ data: { n: 3, b: false, z: null, e: [], o: {} } });
    expect(html).toContain('<dt>n</dt><dd>3</dd>');
    expect(html).toContain('<dt>b</dt><dd>false</dd>');
    expect(html).toContain('<span class="null">null</span>');
  });

  it('shows errors prominently', () => {
    const html = page({
      status: 404,
      title: 'Not found',
      data: {
        statusCode: 404,
        message: 'Project <42> not found',
        context: { projectId: '42' },
        errorId: 'err_abc123',
      },
    });
    expect(html).toContain('role="alert"');
    expect(html).toContain('Error 404');
    expect(html).toContain('Project &lt;42&gt; not found');
    expect(html).toContain('err_abc123');
    expect(html).toContain('<dt>projectId</dt>');
  });

  it('does not render success data as an error', () => {
    expect(page({ status: 200, data: { message: 'hi' } })).not.toContain('role="alert"');
  });
});

describe('renderApiIndex', () => {
  const { html } = renderApiIndex({
    apiBase: API,
    user: null,
    groups: [
      {
        name: 'Projects <core>',
        description: 'Everything about projects',
        routes: [
          { methods: ['GET', 'POST'], path: '/projects', description: 'List', level: 'read' },
          { methods: ['GET'], path: '/projects/{projectId}', description: 'One', level: 'read' },
          { methods: ['POST'], path: '/projects/import', description: 'Import', level: 'admin' },
        ],
      },
    ],
  });

  it('links GET-able concrete paths only', () => {
    expect(html).toContain(`<a href="${API}/projects"><code>${API}/projects</code></a>`);
    expect(html).not.toMatch(/href="[^"]*\{projectId\}/);
    expect(html).toContain(`<code>${API}/projects/{projectId}</code>`);
    expect(html).not.toContain(`href="${API}/projects/import"`);
  });

  it('shows method badges, level, description and escapes group names', () => {
    expect(html).toContain(
      '<span class="badge m-get">GET</span><span class="badge m-post">POST</span>',
    );
    expect(html).toContain('<span class="level" title="Required access level">admin</span>');
    expect(html).toContain('Everything about projects');
    expect(html).toContain('Projects &lt;core&gt;');
  });

  it('lets every route fill the console', () => {
    expect(html).toContain(`data-try-method="GET" data-try-path="${API}/projects/{projectId}"`);
    expect(html).toContain(`data-try-method="POST" data-try-path="${API}/projects/import"`);
  });

  it('includes the try-it console with safe output handling', () => {
    expect(html).toMatch(/<select id="try-method">.*<option>DELETE<\/option>/);
    expect(html).toContain(`id="try-path" type="text" value="${API}/projects"`);
    expect(html).toContain('id="try-token"');
    expect(html).toContain('<textarea id="try-body"');
    expect(html).toContain("credentials: 'same-origin'");
    expect(html).toContain("Accept: 'application/json'");
    expect(html).toContain("'Bearer '");
    expect(html).toContain('textContent');
    expect(html).not.toContain('innerHTML');
    expect(html).toContain('href="/auth/login"');
  });
});
