/**
 * A page opened by a link that names its workspace (`?workspace=<id>`: a decision link from a
 * notice, a question on Activity from another workspace) keeps it: every link, form and
 * redirect of the response that stays on this site and names no workspace of its own gets
 * `workspace=<id>`, so answering, the next question and the run's page stay in the workspace
 * the link was for, whichever one the visitor's switcher shows.
 */

/** Paths that are the same in every workspace (styles, scripts, logging in and out). */
const WORKSPACE_FREE = /^\/(assets\/|login\b|logout\b|healthz\b)/;

/** `path` with `workspace=<id>` added (`&amp;` in HTML), unless it is not ours or already names one. */
export function withWorkspace(path: string, workspace: string, inHtml: boolean): string {
  if (!path.startsWith('/') || path.startsWith('//') || WORKSPACE_FREE.test(path)) return path;
  const [beforeHash, hash] = path.split('#', 2) as [string, string | undefined];
  if (/[?&](amp;)?workspace=/.test(beforeHash)) return path;
  const join = beforeHash.includes('?') ? (inHtml ? '&amp;' : '&') : '?';
  return `${beforeHash}${join}workspace=${encodeURIComponent(workspace)}${hash === undefined ? '' : `#${hash}`}`;
}

/** The response with its own links, forms and redirect kept in `workspace`. */
export async function keepWorkspace(response: Response, workspace: string): Promise<Response> {
  const location = response.headers.get('Location');
  if (location !== null && response.status >= 300 && response.status < 400) {
    const headers = new Headers(response.headers);
    headers.set('Location', withWorkspace(location, workspace, false));
    return new Response(response.body, { status: response.status, headers });
  }
  if (!response.headers.get('Content-Type')?.startsWith('text/html')) return response;
  const html = await response.text();
  const kept = html.replace(
    /\b(href|action)="([^"]*)"/g,
    (_, attribute: string, target: string) => `${attribute}="${withWorkspace(target, workspace, true)}"`,
  );
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  return new Response(kept, { status: response.status, headers });
}
