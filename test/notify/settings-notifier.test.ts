import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { settingsNotifier } from '../../shared/notify/settings-notifier.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { saveSettings } from '../../shared/settings/settings.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

it('uses the notify channel chosen on the Settings page, read at each notice', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-notify-'));
  const store = new JsonFileStore(dir);
  const lines: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (
    lines.push(String(chunk)),
    true
  )) as typeof process.stderr.write;
  try {
    const notifier = settingsNotifier(store, { NOTIFY_CHANNEL: 'console' }, { source: {} });
    const notice = {
      kind: 'completed',
      runId: 'run_1',
      workflowName: 'Inbox',
      summary: 'done',
      link: 'http://127.0.0.1:8080/runs/run_1',
    } as const;
    await notifier.notify(notice);
    expect(lines.join('')).toContain('Inbox: done');
    await saveSettings(store, { confidence_threshold: null, notify_channel: 'slack', ui_base_url: null });
    await expect(notifier.notify(notice)).rejects.toThrow(/SLACK/); // Slack chosen but not configured: visible
  } finally {
    process.stderr.write = original;
    await fs.rm(dir, { recursive: true, force: true });
  }
});

it('builds decision links from the stored UI base URL', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-links-'));
  const engine = engineFromEnv(loadEnv({ HANDOFF_STATE_DIR: dir }));
  expect(await engine.links.urlFor('dec_1', new Date(Date.now() + 60_000))).toMatch(
    /^http:\/\/127\.0\.0\.1:3000\/decide\/dec_1\?token=/,
  );
  await saveSettings(engine.store, {
    confidence_threshold: null,
    notify_channel: null,
    ui_base_url: 'https://handoff.example.org',
  });
  expect(await engine.links.urlFor('dec_1', new Date(Date.now() + 60_000))).toMatch(
    /^https:\/\/handoff\.example\.org\/decide\/dec_1\?token=/,
  );
  await fs.rm(dir, { recursive: true, force: true });
});
