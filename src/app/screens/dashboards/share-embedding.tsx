// Turning dashboard embedding on from the share dialog, for an Admin about to share publicly:
// the project's `dashboardEmbedding` and `embedOrigins` (the sites that may frame the public
// page), written with PUT /projects/{id} as Admin → Settings does. The API's 400 about an
// origin is shown at the field.
import { useState } from 'preact/hooks';
import { ApiError, api, projectApi } from '../../api';

export interface Embedding {
  dashboardEmbedding: boolean;
  embedOrigins: string[];
}

export function EmbeddingSwitch(p: { project: string; onOn: (e: Embedding) => void }) {
  const [origins, setOrigins] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const turnOn = async () => {
    setBusy(true);
    setError(undefined);
    const list = origins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    try {
      const r = await api<{ project: Partial<Embedding> }>('PUT', projectApi(p.project), {
        dashboardEmbedding: true,
        embedOrigins: list.length ? list : null,
      });
      p.onOn({ dashboardEmbedding: true, embedOrigins: r.project.embedOrigins ?? list });
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    } finally {
      setBusy(false);
    }
  };
  const bad = error?.context.field === 'embedOrigins';
  return (
    <div class="dash-embedding" role="group" aria-labelledby="dash-embedding-h">
      <p id="dash-embedding-h" class="dash-hint">
        Public shares are off in this project. Turn dashboard embedding on to share it publicly.
      </p>
      <label for="dash-embed-origins">
        Sites that may frame it (one origin a line, such as https://intranet.example.com; empty: any
        site)
        <textarea
          id="dash-embed-origins"
          rows={2}
          spellcheck={false}
          value={origins}
          aria-invalid={bad || undefined}
          aria-describedby={error ? 'dash-embed-error' : undefined}
          onInput={(e) => setOrigins(e.currentTarget.value)}
        />
      </label>
      <button type="button" disabled={busy} onClick={() => void turnOn()}>
        {busy ? 'Turning on…' : 'Turn on embedding'}
      </button>
      {error && (
        <p id="dash-embed-error" class="error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
