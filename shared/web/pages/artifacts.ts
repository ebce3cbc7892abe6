/**
 * Artifacts (`/artifacts`, `/artifacts/:id`): what runs produced — drafts, digests,
 * tickets, reports — with where each came from. Content is always shown as escaped
 * text (every type an artifact may have is text), and downloaded as an attachment.
 */
import { html } from 'hono/html';
import type { Artifact } from '../../artifacts/artifacts.ts';
import { shell, type Visitor } from './layout.ts';
import { plural, scrollable, when, type Html } from './ui.ts';

export interface ArtifactsData {
  artifacts: Artifact[];
  names: Map<string, string>;
  /** Listing one run's artifacts. */
  runId: string | null;
  pending: number;
  /** Where the next (older) page starts, when there is one. */
  older: string | null;
  /** False on a page reached by "Older artifacts". */
  isFirstPage: boolean;
}

/** `1.2 KB`-style sizes. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The artifacts as a table (also on the run inspector); each links to its page and its download. */
export function artifactsTable(artifacts: Artifact[], names: Map<string, string>, showRun = true): Html {
  return scrollable(
    'Artifacts',
    html`<table class="table table-stack" data-artifacts>
      <thead>
        <tr>
          <th scope="col">Artifact</th>
          <th scope="col">Kind</th>
          ${showRun ? html`<th scope="col">Run</th>` : ''}
          <th scope="col">Created</th>
          <th scope="col">Size</th>
          <th scope="col"><span class="visually-hidden">Download</span></th>
        </tr>
      </thead>
      <tbody>
        ${artifacts.map(
          (a) =>
            html`<tr data-artifact-id="${a.id}">
              <td data-label="Artifact">
                <a href="/artifacts/${encodeURIComponent(a.id)}">${a.title}</a>
                <span class="muted small">· ${names.get(a.workflow_id) ?? a.workflow_id}</span>
              </td>
              <td data-label="Kind">${a.kind}</td>
              ${
                showRun
                  ? html`<td data-label="Run">
                      <a class="mono" href="/runs/${encodeURIComponent(a.run_id)}">${a.run_id}</a>
                    </td>`
                  : ''
              }
              <td data-label="Created">${when(a.created_at)}</td>
              <td data-label="Size">${sizeText(a.size)}</td>
              <td data-label="Download">
                ${
                  a.body === null
                    ? html`<span class="muted small">kept at its source</span>`
                    : html`<a href="/artifacts/${encodeURIComponent(a.id)}/download"
                        >Download<span class="visually-hidden"> ${a.title}</span></a
                      >`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

/** The Artifacts page: the workspace's artifacts, or one run's (`?run=`). */
export function artifactsPage(visitor: Visitor, data: ArtifactsData): Html {
  const { artifacts, runId } = data;
  const run = runId ? `run=${encodeURIComponent(runId)}&` : '';
  return shell({
    title: 'Artifacts',
    nav: 'artifacts',
    visitor,
    pending: data.pending,
    body: html`<h1>Artifacts</h1>
      <p class="lede">
        What runs produced: reply drafts, tickets, digests and run reports, each with the run, the item and
        (when you decided) the decision it came from.
        ${
          runId
            ? html`Showing run <a class="mono" href="/runs/${encodeURIComponent(runId)}">${runId}</a>;
                <a href="/artifacts">show every run</a>.`
            : ''
        }
      </p>
      ${
        artifacts.length === 0
          ? html`<p class="muted">
              Nothing yet. A run's drafts, tickets and report appear here when it acts.
            </p>`
          : html`<p class="muted small">
                ${plural(artifacts.length, 'artifact')}, newest
                first${data.isFirstPage ? '' : ' (older ones)'}.
                ${data.isFirstPage ? '' : html`<a href="/artifacts${run ? `?${run.slice(0, -1)}` : ''}">Newest</a>`}
              </p>
              ${artifactsTable(artifacts, data.names, runId === null)}`
      }
      ${
        data.older
          ? html`<p>
              <a href="/artifacts?${run}cursor=${encodeURIComponent(data.older)}">Older artifacts</a>
            </p>`
          : ''
      }`,
  });
}

/** One artifact: where it came from and its content as text. */
export function artifactPage(
  visitor: Visitor,
  data: { artifact: Artifact; workflowName: string; pending: number },
): Html {
  const a = data.artifact;
  return shell({
    title: a.title,
    nav: 'artifacts',
    visitor,
    pending: data.pending,
    body: html`<p class="eyebrow"><a href="/artifacts">Artifacts</a> / ${a.kind}</p>
      <h1>${a.title}</h1>
      <dl class="facts" data-provenance>
        <dt>Workflow</dt>
        <dd>${data.workflowName}</dd>
        <dt>Run</dt>
        <dd><a class="mono" href="/runs/${encodeURIComponent(a.run_id)}">${a.run_id}</a></dd>
        <dt>Item</dt>
        <dd class="mono">${a.item_id ?? '—'}</dd>
        <dt>Decision</dt>
        <dd>
          ${
            a.decision_id
              ? html`<a class="mono" href="/decide/${encodeURIComponent(a.decision_id)}">${a.decision_id}</a>`
              : '— (no person was asked)'
          }
        </dd>
        <dt>Type</dt>
        <dd class="mono">${a.content_type} · ${sizeText(a.size)}</dd>
        <dt>Created</dt>
        <dd>${when(a.created_at)}</dd>
        ${
          a.pointer
            ? html`<dt>Lives at</dt>
                <dd class="mono">${a.pointer}</dd>`
            : ''
        }
      </dl>
      ${
        a.body === null
          ? html`<p class="muted">Too large to keep a copy here; it is at its source.</p>`
          : html`<p><a class="button" href="/artifacts/${encodeURIComponent(a.id)}/download">Download</a></p>
              <pre class="verbatim" data-artifact-body tabindex="0">${a.body}</pre>`
      }`,
  });
}
