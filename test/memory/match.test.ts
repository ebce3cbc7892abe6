import { describe, expect, it } from '@jest/globals';
import { findCoveringRule, matches } from '../../shared/memory/match.ts';
import type { Rule } from '../../shared/records/rule.ts';

const subject = (senderAddress: string, subjectLine = 'Hello', text = '') => ({
  senderAddress,
  subject: subjectLine,
  text,
});

function rule(over: Partial<Rule> & Pick<Rule, 'match'>): Rule {
  return {
    id: over.id ?? 'rule_x',
    workflow_id: null,
    source_key: null,
    scope: 'source',
    action: 'archive',
    source: 'you',
    note: null,
    confidence: 1,
    decision_id: null,
    item_id: null,
    superseded_by: null,
    pattern: null,
    mirror_ids: [],
    created_at: '2026-01-01T00:00:00Z',
    deleted_at: null,
    ...over,
  };
}

describe('recall matches an exact sender', () => {
  it('matches the same address, case-insensitively', () => {
    expect(matches({ sender: 'Ana@Vendor.com' }, subject('ana@vendor.com'))).toBe(true);
  });

  it('does not match another address at the same domain', () => {
    expect(matches({ sender: 'ana@vendor.com' }, subject('bob@vendor.com'))).toBe(false);
  });

  it('does not match an address that merely contains it', () => {
    expect(matches({ sender: 'ana@vendor.com' }, subject('xana@vendor.com'))).toBe(false);
    expect(matches({ sender: 'ana@vendor.com' }, subject('ana@vendor.com.evil.net'))).toBe(false);
  });
});

describe('recall matches a whole domain', () => {
  it('matches any address at the domain, case-insensitively, with or without @', () => {
    expect(matches({ domain: 'vendor.com' }, subject('a@VENDOR.com'))).toBe(true);
    expect(matches({ domain: '@vendor.com' }, subject('a@vendor.com'))).toBe(true);
  });

  it('never matches a look-alike domain that ends with the same letters', () => {
    expect(matches({ domain: 'vendor.com' }, subject('a@evilvendor.com'))).toBe(false);
  });

  it('never matches a domain that only starts with it', () => {
    expect(matches({ domain: 'vendor.com' }, subject('a@vendor.com.evil.net'))).toBe(false);
  });

  it('treats a subdomain as a different domain', () => {
    expect(matches({ domain: 'vendor.com' }, subject('a@mail.vendor.com'))).toBe(false);
  });

  it('never reads a display name that spells an address', () => {
    // The engine passes only the bare address; a spoofed display name never reaches recall.
    expect(matches({ domain: 'vendor.com' }, subject('"billing@vendor.com" <x@evil.example>'))).toBe(false);
    expect(matches({ sender: 'billing@vendor.com' }, subject('billing@vendor.com <x@evil.example>'))).toBe(
      false,
    );
  });
});

describe('recall needs at least two distinct keywords, as whole words', () => {
  const match = { keywords: ['invoice', 'overdue', 'payment'] };

  it('matches two distinct keywords', () => {
    expect(matches(match, subject('x@y.com', 'Invoice overdue'))).toBe(true);
    expect(matches(match, subject('x@y.com', 'Hi', 'your payment for the invoice'))).toBe(true);
  });

  it('does not match one shared keyword, however often it appears', () => {
    expect(matches(match, subject('x@y.com', 'Invoice', 'invoice invoice INVOICE'))).toBe(false);
  });

  it('does not count a keyword inside another word', () => {
    expect(matches(match, subject('x@y.com', 'Invoices are overdueish', 'prepayment'))).toBe(false);
  });

  it('does not count the same keyword twice when it is listed twice', () => {
    expect(matches({ keywords: ['invoice', 'Invoice'] }, subject('x@y.com', 'invoice'))).toBe(false);
  });
});

describe('which rule covers an item', () => {
  const item = subject('ana@vendor.com', 'Weekly digest');

  it('prefers rules you set over learned ones', () => {
    const learned = rule({
      id: 'learned',
      source: 'learned',
      match: { sender: 'ana@vendor.com' },
      action: 'file_ticket',
    });
    const yours = rule({ id: 'yours', source: 'you', match: { domain: 'vendor.com' }, action: 'archive' });
    expect(findCoveringRule([learned, yours], 'inbox', item)?.id).toBe('yours');
  });

  it('prefers the most specific match among rules of the same source', () => {
    const domain = rule({ id: 'domain', match: { domain: 'vendor.com' } });
    const sender = rule({ id: 'sender', match: { sender: 'ana@vendor.com' } });
    expect(findCoveringRule([domain, sender], 'inbox', item)?.id).toBe('sender');
  });

  it('does not let a rule for one workflow leak into another', () => {
    const scoped = rule({ workflow_id: 'other', match: { domain: 'vendor.com' } });
    expect(findCoveringRule([scoped], 'inbox', item)).toBeUndefined();
    expect(findCoveringRule([scoped], 'other', item)?.id).toBe(scoped.id);
  });

  it('never fires a superseded rule', () => {
    const old = rule({ id: 'old', superseded_by: 'new', match: { domain: 'vendor.com' } });
    expect(findCoveringRule([old], 'inbox', item)).toBeUndefined();
  });
});
