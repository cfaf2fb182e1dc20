// Explore: write AQL (completion of model objects and functions), run it, see where an error
// points and fix it with a click, read and download the result, and — MD Admins — save it
// as a metric or a report (drawn by the server) and add the report to a dashboard.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { useProject } from '../../project';
import { useLocation } from '../../router';
import { ErrorNote, Title } from '../../ui';
import { docHref } from '../docs/docs';
import { Builder } from './builder';
import { builderModel, EMPTY, fromAql, nextSort, toAql } from './builder-aql';
import { AqlEditor, type Mark, type Selection } from './editor';
import { markOf, type Fix, type Problem } from './fixes';
import { useModel } from './model';
import { Problems } from './problems';
import { runQuery, type QueryResult } from './query';
import { ResultView } from './result';
import { SavedReport } from './report';
import { reportAql, ReportEditor, ReportPicker } from './report-edit';
import type { Preset, Shown } from './result-chart';
import { SaveMetric, SaveReport, type Saved } from './save';
import './explore.css';

interface Found {
  kind: 'error' | 'warning';
  problems: Problem[];
  /** The text they were found in. */
  text: string;
}

/** An ApiError as a problem: its message, and where and what when the API says so. */
function problemOf(e: unknown): Problem {
  if (!(e instanceof ApiError)) return { message: String(e) };
  const c = e.context;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    message: e.message,
    line: num(c.line),
    column: num(c.column),
    found: typeof c.found === 'string' ? c.found : undefined,
    suggestions: Array.isArray(c.suggestions)
      ? c.suggestions.filter((s): s is string => typeof s === 'string')
      : undefined,
  };
}

const initialText = () => new URLSearchParams(location.search).get('aql') ?? '';
const initialReport = () => new URLSearchParams(location.search).get('report');

export function Explore(_props: { rest: string[] }) {
  const project = useProject();
  const model = useModel(project.id);
  const [text, setText] = useState(initialText);
  const [found, setFound] = useState<Found | null>(null);
  const [result, setResult] = useState<(QueryResult & { aql: string }) | null>(null);
  const [running, setRunning] = useState(false);
  const [select, setSelect] = useState<Selection | null>(null);
  // The saved report open here (opened, or saved from here): kept in the address as ?report=.
  const [report, setReportState] = useState<Saved | null>(() => {
    const ident = initialReport();
    return ident ? { ident, name: '' } : null;
  });
  const reportRef = useRef(report);
  const setReport = (r: Saved | null) => {
    reportRef.current = r;
    setReportState(r);
  };
  // Bumped when a report was saved, renamed or deleted: lists and drawings are read again.
  const [version, setVersion] = useState(0);
  const [reportError, setReportError] = useState<ApiError>();
  const runs = useRef(0);
  const selects = useRef(0);
  const [shown, setShown] = useState<Shown | null>(null);
  const onShown = useCallback((v: Shown) => setShown(v), []);
  // The chart starts anew (the result's own, or an opened report's) when a report is opened
  // or a link brings another question (a drill from a chart): not on the reader's own runs.
  const [view, setView] = useState<{ seq: number; preset?: Preset }>({ seq: 0 });
  /** A run that starts the chart anew: `{ preset }` (an opened report's), or `{}`. */
  type Restart = { preset?: Preset };
  const bm = useMemo(() => builderModel(model.objects), [model.objects]);

  const remember = (aql: string) => {
    const r = reportRef.current;
    const q = new URLSearchParams({ ...(r ? { report: r.ident } : {}), ...(aql ? { aql } : {}) });
    history.replaceState(null, '', `${location.pathname}${q.size ? `?${q}` : ''}`);
  };

  const run = async (aql = text, restart?: Restart) => {
    if (!aql.trim()) return;
    const seq = ++runs.current;
    const stale = () => seq !== runs.current;
    setRunning(true);
    // The address keeps the query: a run can be bookmarked, shared, reloaded.
    remember(aql);
    try {
      const r = await runQuery(project.id, aql, stale);
      if (!r) return;
      setResult({ ...r, aql });
      // With its result, so the chart starts anew on the question it is for.
      if (restart) setView((v) => ({ seq: v.seq + 1, preset: restart.preset }));
      setFound(r.warnings.length ? { kind: 'warning', problems: r.warnings, text: aql } : null);
    } catch (e) {
      if (stale()) return;
      setResult(null);
      setFound({ kind: 'error', problems: [problemOf(e)], text: aql });
    } finally {
      if (!stale()) setRunning(false);
    }
  };

  /** Opens a saved report: its query in the editor, run. */
  const open = async (ident: string, aql?: string) => {
    setReportError(undefined);
    try {
      const saved = await reportAql(project.id, ident);
      setReport({ ident, name: saved.name });
      const q = aql ?? saved.aql;
      setText(q);
      void run(q, { preset: saved.visualization });
    } catch (e) {
      setReport(null);
      remember(text);
      setReportError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    }
  };
  // A report or a query in the address (a link from another screen, a reload) is opened and
  // run (a query edited since the report was opened wins over the saved one).
  useEffect(() => {
    const ident = initialReport();
    if (ident) void open(ident, initialText() || undefined);
    else if (text.trim()) void run(text);
  }, []);
  // A link followed while Explore is open (the header's search) asks for another report or
  // query: opened like one in the address on arrival. Explore's own changes replace the
  // address without telling (history.replaceState), so they do not come here.
  const loc = useLocation();
  const arrived = useRef(loc);
  useEffect(() => {
    if (loc === arrived.current) return;
    const ident = loc.query.get('report');
    const aql = loc.query.get('aql');
    if (ident && ident !== reportRef.current?.ident) void open(ident, aql ?? undefined);
    else if (!ident && aql) {
      setReport(null);
      setText(aql);
      void run(aql, {});
    }
  }, [loc]);
  const closeReport = () => {
    setReport(null);
    remember(result?.aql ?? '');
  };
  // The builder writes the editor's text and runs it.
  const build = (aql: string) => {
    setText(aql);
    if (aql) void run(aql);
    else {
      runs.current++;
      setResult(null);
      setFound(null);
      setRunning(false);
      remember('');
    }
  };

  const current = found !== null && found.text === text;
  let mark: Mark | null = null;
  if (current) {
    for (const p of found.problems) {
      const m = markOf(text, p);
      if (m) {
        mark = { ...m, line: p.line!, column: p.column! };
        break;
      }
    }
  }

  const selectRange = (start: number, end: number) =>
    setSelect({ start, end, seq: ++selects.current });
  const goTo = (p: Problem) => {
    const m = markOf(text, p);
    if (m) selectRange(m.offset, m.offset + m.length);
  };
  const fix = (f: Fix) => {
    setText(f.text);
    selectRange(f.caret, f.caret);
  };

  // A result of the builder's query sorts by a click on a column's title.
  const built = result && result.aql === text ? fromAql(bm, text) : null;
  const sortable = built && built !== EMPTY ? built : null;
  const sortBy = sortable
    ? (col: number) => build(toAql(bm, { ...sortable, sort: nextSort(sortable.sort, col) }))
    : undefined;

  const mdadmin = project.access.mdadmin;
  return (
    <section class="explore">
      <Title text="Explore" />
      <p class="muted">
        Ask the data with a query in{' '}
        <a href={docHref('aql.md')} target="_blank" rel="noopener" title="AQL reference (new tab)">
          AQL
        </a>
        : name attributes, facts and metrics in square brackets, e.g.{' '}
        <code>SELECT [Carrier Name], SUM([Distance])</code>.
      </p>
      <div class="explore-ask">
        <Builder
          project={project.id}
          objects={model.objects}
          model={model}
          text={text}
          onChange={build}
        />
        <div class="explore-editor">
          <ReportPicker
            project={project.id}
            open={report?.ident ?? null}
            version={version}
            onOpen={(ident) => void open(ident)}
          />
          <ErrorNote error={reportError} />
          <label for="aql">Query</label>
          <AqlEditor
            id="aql"
            value={text}
            onChange={setText}
            onRun={() => void run()}
            model={model}
            mark={mark}
            select={select}
            describedBy={found?.kind === 'error' ? 'aql-hint aql-problems' : 'aql-hint'}
            invalid={current && found.kind === 'error'}
          />
          <p id="aql-hint" class="muted small">
            Type <kbd>[</kbd> for the model's objects, <kbd>Ctrl</kbd>+<kbd>Space</kbd> for
            functions; <kbd>Ctrl</kbd>+<kbd>Enter</kbd> (<kbd>⌘</kbd>+<kbd>Enter</kbd>) runs.
          </p>
          <div class="explore-bar">
            <button type="button" onClick={() => void run()} disabled={running}>
              Run
            </button>
            {running && (
              <span class="muted" role="status">
                Running…
              </span>
            )}
          </div>
        </div>
      </div>
      {found && (
        <Problems
          id="aql-problems"
          kind={found.kind}
          problems={found.problems}
          text={text}
          current={current}
          onGoTo={goTo}
          onFix={fix}
        />
      )}
      {result && (
        <ResultView
          key={view.seq}
          project={project.id}
          objects={model.objects}
          preset={view.preset}
          result={result}
          aql={result.aql}
          name={report?.name || undefined}
          sort={sortable?.sort}
          onSort={sortBy}
          onShown={onShown}
        />
      )}
      {report && !mdadmin && report.name && <p class="muted">Report “{report.name}”.</p>}
      {report && mdadmin && report.name && (
        <ReportEditor
          key={report.ident}
          project={project.id}
          report={report}
          aql={result?.aql ?? null}
          onSaved={(r) => {
            setReport(r);
            setVersion((v) => v + 1);
          }}
          onDeleted={() => {
            setReport(null);
            setVersion((v) => v + 1);
            remember(result?.aql ?? '');
          }}
          onClose={closeReport}
        />
      )}
      {result && mdadmin && (
        <div class="explore-saves">
          <SaveReport
            project={project.id}
            aql={result.aql}
            chart={shown?.choice}
            keys={shown?.keys}
            onSaved={(r) => {
              setReport(r);
              setVersion((v) => v + 1);
              remember(result.aql);
            }}
          />
          <SaveMetric project={project.id} aql={result.aql} onSaved={model.reload} />
        </div>
      )}
      {mdadmin && report && report.name && (
        <SavedReport key={`${report.ident}@${version}`} project={project.id} report={report} />
      )}
    </section>
  );
}
