/** GitHub `pull_request` webhook deliveries as GitHub sends them: the body, its signature and headers. */
import { createHmac, randomUUID } from 'node:crypto';

export interface PullRequestSpec {
  owner?: string;
  repo?: string;
  number: number;
  title: string;
  body?: string | null;
  login?: string;
  bot?: boolean;
  sha?: string;
  action?: string;
  changed_files?: number;
  additions?: number;
  deletions?: number;
}

/** A real-shaped `pull_request` event (the fields GitHub sends that matter here, and some that do not). */
export function pullRequestEvent(spec: PullRequestSpec): Record<string, unknown> {
  const owner = spec.owner ?? 'octo-org';
  const repo = spec.repo ?? 'widgets';
  const login = spec.login ?? 'dana-dev';
  const user = { login, id: 101, type: spec.bot ? 'Bot' : 'User', site_admin: false };
  return {
    action: spec.action ?? 'opened',
    number: spec.number,
    pull_request: {
      url: `https://api.github.com/repos/${owner}/${repo}/pulls/${spec.number}`,
      html_url: `https://github.com/${owner}/${repo}/pull/${spec.number}`,
      number: spec.number,
      state: 'open',
      locked: false,
      title: spec.title,
      user,
      body: spec.body === undefined ? 'Adds the thing.' : spec.body,
      created_at: '2026-11-30T09:00:00Z',
      updated_at: '2026-11-30T09:00:00Z',
      draft: false,
      head: {
        label: `${owner}:feature`,
        ref: 'feature',
        sha: spec.sha ?? 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
        user,
      },
      base: { label: `${owner}:main`, ref: 'main', sha: '0f0e0d0c0b0a09080706050403020100ffeeddcc', user },
      merged: false,
      comments: 0,
      review_comments: 0,
      commits: 1,
      additions: spec.additions ?? 120,
      deletions: spec.deletions ?? 30,
      changed_files: spec.changed_files ?? 6,
    },
    repository: {
      id: 4242,
      name: repo,
      full_name: `${owner}/${repo}`,
      private: false,
      owner: { login: owner, id: 77, type: 'Organization' },
      html_url: `https://github.com/${owner}/${repo}`,
      default_branch: 'main',
    },
    sender: user,
  };
}

/** `sha256=<hex>` over the raw bytes, as GitHub computes X-Hub-Signature-256. */
export function githubSignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** The headers of one GitHub delivery of `body`; a redelivery passes the same `delivery`. */
export function githubHeaders(
  body: string,
  secret: string,
  event = 'pull_request',
  delivery: string = randomUUID(),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/abc1234',
    'x-github-event': event,
    'x-github-delivery': delivery,
    'x-github-hook-id': '512345678',
    'x-hub-signature-256': githubSignature(body, secret),
  };
}
