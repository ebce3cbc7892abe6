import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { signDecisionToken, spendToken, verifyDecisionToken } from '../../shared/links/decision-token.ts';
import { FileLinkKey } from '../../shared/links/link-key.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

const key = Buffer.alloc(32, 1);
const inAnHour = () => new Date(Date.now() + 3_600_000);

describe('decision link tokens', () => {
  it('are URL-safe and open only their own decision until they expire', () => {
    const token = signDecisionToken(key, 'dec_1', inAnHour());
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyDecisionToken(key, token, 'dec_1')).toMatchObject({ ok: true, claims: { d: 'dec_1' } });
    expect(verifyDecisionToken(key, token, 'dec_2')).toEqual({ ok: false, reason: 'other_decision' });
    expect(verifyDecisionToken(key, token, 'dec_1', new Date(Date.now() + 7_200_000))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuse a forged signature, another key, a tampered payload and garbage', () => {
    const token = signDecisionToken(key, 'dec_1', inAnHour());
    const [payload, signature] = token.split('.') as [string, string];
    const tampered = Buffer.from(JSON.stringify({ d: 'dec_9', e: 9_999_999_999, n: 'x' })).toString(
      'base64url',
    );
    expect(verifyDecisionToken(Buffer.alloc(32, 2), token, 'dec_1')).toEqual({ ok: false, reason: 'forged' });
    expect(verifyDecisionToken(key, `${tampered}.${signature}`, 'dec_9')).toEqual({
      ok: false,
      reason: 'forged',
    });
    expect(verifyDecisionToken(key, `${payload}.${signature.slice(1)}x`, 'dec_1').ok).toBe(false);
    expect(verifyDecisionToken(key, 'nonsense', 'dec_1')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('are spent once', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-token-'));
    const store = new JsonFileStore(dir);
    const check = verifyDecisionToken(key, signDecisionToken(key, 'dec_1', inAnHour()), 'dec_1');
    if (!check.ok) throw new Error('expected a valid token');
    expect(await spendToken(store, check.claims)).toBe(true);
    expect(await spendToken(store, check.claims)).toBe(false);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('are signed with a local key that is made once and readable only by its owner', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-key-'));
    const [a, b] = await Promise.all([new FileLinkKey(dir).get(), new FileLinkKey(dir).get()]);
    expect(a.equals(b)).toBe(true);
    expect((await fs.stat(path.join(dir, 'link.key'))).mode & 0o077).toBe(0);
    await fs.rm(dir, { recursive: true, force: true });
  });
});
