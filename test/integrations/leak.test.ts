/**
 * THE leak test: a whole workflow run whose integration needs a credential — reads
 * that echo it, a read that fails quoting it, a gated write that fails quoting it —
 * and afterwards the value is nowhere: not in any stored file, not in the feed,
 * not in anything written to the console or the standard streams.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { emit, feed } from '../../shared/events/feed.ts';
import { addEntry } from '../../shared/integrations/registry.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, bySubject, type ToolResults } from '../support/scripted-model.ts';
import { startTicketServer, type TicketServer } from './support/http-mcp-server.ts';
import { integrationScript } from './support/script.ts';

const manual = { kind: 'manual', detail: null } as const;
const SECRET = `tkn_${randomBytes(18).toString('hex')}`;
/** Every form in which the value could turn up. */
const FORMS = [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')];

let fixture: EngineFixture | undefined;
let server: TicketServer | undefined;
afterEach(async () => {
  jest.restoreAllMocks();
  await server?.close();
  await fixture?.cleanup();
});

/** Captures every console call and every write to stdout/stderr, passing them through. */
function captureOutput(): string[] {
  const lines: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method].bind(console);
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
      original(...args);
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream) as (...a: unknown[]) => boolean;
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      lines.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
      return original(chunk, ...rest);
    }) as typeof stream.write);
  }
  return lines;
}

async function everyFile(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

function expectNoSecret(text: string, where: string): void {
  for (const form of FORMS) expect({ where, leaked: text.includes(form) }).toEqual({ where, leaked: false });
}

describe('a credential used by an integration', () => {
  it('never appears in stored records, feed events or logs, even when the service echoes it', async () => {
    const output = captureOutput();
    console.warn('capture-check');
    server = await startTicketServer(SECRET);
    const seen: ToolResults = [];
    fixture = await engineFixture({
      messages: [
        mail({ from: 'qa@team.example', subject: 'Bug: login broken', body: 'The login page is blank.\n' }),
        mail({ from: 'pat@team.example', subject: 'Maybe a bug', body: 'Is the footer meant to be grey?\n' }),
        mail({ from: 'lee@team.example', subject: 'Close the old one', body: 'Ticket 1 is done.\n' }),
      ],
      model: () =>
        new ScriptedModel(
          integrationScript(
            [
              { name: 'tickets__whoami', input: {} },
              { name: 'tickets__check_scope', input: {} },
              { name: 'tickets__find_ticket', input: { text: 'login' } },
              { name: 'tickets__create_ticket', input: { title: 'sneaky', body: 'not through the gate' } },
            ],
            bySubject({
              'login broken': {
                action: 'tickets__create_ticket',
                confidence: 0.95,
                reasoning: 'a clear bug',
              },
              'Maybe a bug': {
                action: 'tickets__create_ticket',
                confidence: 0.4,
                reasoning: 'might be design',
              },
              'Close the old one': {
                action: 'tickets__close_ticket',
                confidence: 0.99,
                reasoning: 'it is done',
              },
            }),
            seen,
          ),
        ),
    });
    fixture.deps.emit = emit; // the real, process-wide feed
    const stateDir = path.join(fixture.dir, 'state');
    await fixture.deps.credentials.set('TICKETS_TOKEN', new Secret(SECRET));
    await addEntry(fixture.store, {
      name: 'tickets',
      title: 'Tickets',
      transport: { kind: 'http', url: server.url, bearer: 'TICKETS_TOKEN' },
    });
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        `id: bugs
name: Bug intake
instructions: File bug reports as tickets; close tickets people say are done.
trigger: { manual: true }
source: { type: maildir, path: ${fixture.maildir} }
actions:
  - { name: tickets__create_ticket }
  - { name: tickets__close_ticket }
human_gate: { options: [tickets__create_ticket, tickets__close_ticket, skip] }
`,
        'bugs.yaml',
      ),
    );

    // Act: the run pauses on two items, then the person approves both.
    const run = await startRun(fixture.deps, 'bugs', manual);
    expect(run.status).toBe('waiting');
    const paused = await fs.readFile(path.join(stateDir, 'runs', `${run.id}.json`), 'utf8');
    expect(paused).toContain('you are calling with Bearer [redacted]');
    expect(paused).toContain('token [redacted] lacks scope');
    for (const decision of await listPending(fixture.store))
      await decide(fixture.deps, decision.id, 'approve_suggested', 'go ahead');

    // The run really used the credential, and the service really echoed it.
    expect(new Set(server.authorizations)).toEqual(new Set([`Bearer ${SECRET}`]));
    expect(server.tickets.map((t) => t.title)).toEqual(['Bug: login broken', 'Maybe a bug']);
    expect(seen.find((r) => r.name === 'tickets__create_ticket')?.result).toMatchObject({ status: 'error' });
    const audit = await listAudit(fixture.store, { runId: run.id });
    expect(audit.find((e) => e.action === 'tickets__close_ticket')).toMatchObject({
      outcome: 'failed',
      decided_by: 'human',
      detail: 'tickets__close_ticket failed: refused for Bearer [redacted]',
    });

    // Assess: every stored file, every feed event, every captured line.
    const files = await everyFile(fixture.dir);
    expect(files.some((f) => f.includes(`${path.sep}credentials${path.sep}`))).toBe(true);
    for (const file of files) expectNoSecret(await fs.readFile(file, 'utf8'), file);
    const events = feed.history(run.id);
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['started', 'deferred', 'acted', 'failed']),
    );
    expectNoSecret(JSON.stringify(events), 'the feed');
    expect(output).toContain('capture-check');
    expectNoSecret(output.join('\n'), 'the captured output');
  });
});
