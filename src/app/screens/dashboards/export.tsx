// "Export to PDF": the server prints the dashboard's page as the member sees it, with the
// filters of the address (POST app/export/url), and the browser saves it as <name>.pdf.
import { useState } from 'preact/hooks';
import { apiHref, dashboardPath } from '../../../contract/urls';
import { ApiError, download, projectApi } from '../../api';
import { ErrorNote } from '../../ui';

interface Props {
  project: string;
  id: string;
  name: string;
  /** The filter query of the address ('' or `?filter=…`). */
  query: string;
}

/** A file name as the API makes one from a title: no path or reserved characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
export const fileName = (name: string) => `${name.replace(/[/\\:*?"<>|\x00-\x1f]/g, '_')}.pdf`;

export function ExportButton({ project, id, name, query }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [done, setDone] = useState(false);

  const run = async () => {
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      // The page's path on this site (the API reads it against its own address).
      const url = `${apiHref(dashboardPath(project, id))}${query}`;
      await download(
        'POST',
        `${projectApi(project)}/app/export/url`,
        fileName(name),
        { url, landscape: true },
        'application/pdf',
      );
      setDone(true);
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="dash-export">
      <button
        type="button"
        class="quiet"
        onClick={run}
        disabled={busy}
        aria-describedby="dash-export-status"
      >
        {busy ? 'Exporting…' : 'Export to PDF'}
      </button>
      <span id="dash-export-status" role="status" class="muted">
        {busy
          ? 'Printing the dashboard to PDF; this can take a few seconds.'
          : done
            ? 'PDF saved.'
            : ''}
      </span>
      <ErrorNote error={error} />
    </div>
  );
}
