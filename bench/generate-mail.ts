/**
 * A seeded, varied inbox for benchmarks: newsletters (with List-Unsubscribe), receipts,
 * bug reports, colleague mail at the recipient's domain, vendor pitches, ambiguous mail and
 * a few phishing look-alikes. The same seed and size always give the same messages.
 */
import type { MessageSpec } from '../shared/sources/maildir/generate.ts';
import { SeededRandom } from './seeded-random.ts';

export const DEFAULT_SEED = 0x5eed_2025;
export const RECIPIENT = 'alex.morgan@northwind.example';
const OWN_DOMAIN = 'northwind.example';
const BASE_DATE = Date.UTC(2025, 2, 1, 6, 0, 0);

export type MailKind =
  'newsletter' | 'receipt' | 'bug_report' | 'colleague' | 'pitch' | 'ambiguous' | 'phishing';

/** Share of each kind; the rest of the benchmark reports what it got, not what it asked for. */
const KIND_WEIGHTS: [MailKind, number][] = [
  ['newsletter', 22],
  ['receipt', 17],
  ['bug_report', 15],
  ['colleague', 18],
  ['pitch', 11],
  ['ambiguous', 13],
  ['phishing', 4],
];

const FIRST = [
  'Priya',
  'Marco',
  'Dana',
  'Jonas',
  'Tomi',
  'Aiko',
  'Lena',
  'Mateo',
  'Sofia',
  'Noah',
  'Amara',
  'Felix',
  'Ines',
  'Ravi',
  'Chloe',
  'Omar',
  'Hannah',
  'Kenji',
  'Zoë',
  'José',
  'Björn',
  'Fatima',
  'Liam',
  'Maya',
  'Oskar',
  'Nadia',
  'Elif',
  'Tariq',
  'Greta',
  'Wen',
] as const;
const LAST = [
  'Sharma',
  'Rossi',
  'Whitfield',
  'Keller',
  'Okafor',
  'Tanaka',
  'Fischer',
  'García',
  'Moreau',
  'Nguyen',
  'Andersen',
  'Kowalski',
  'Haddad',
  'Silva',
  "O'Brien",
  'Novak',
  'Ibrahim',
  'Larsen',
  'Costa',
  'Müller',
] as const;
const BRANDS = [
  'Infra',
  'Dev',
  'Cloud',
  'Data',
  'Stack',
  'Pixel',
  'Ops',
  'Byte',
  'Signal',
  'Frontend',
  'Rust',
  'Product',
] as const;
const BRAND_SUFFIX = ['Weekly', 'Digest', 'Reads', 'Insider', 'Monthly', 'Brief', 'Roundup'] as const;
const TOPICS = [
  'Postgres 17 upgrades',
  'eBPF tracing',
  'sane on-call',
  'feature flags',
  'structured logging',
  'idempotent webhooks',
  'zero-downtime migrations',
  'TypeScript 5.9',
  'WASM at the edge',
  'queue backpressure',
  'SLOs that mean something',
  'CRDTs in practice',
  'incident reviews',
  'cost-aware autoscaling',
  'design systems',
  'monorepo tooling',
  'vector search',
  'HTTP/3 rollouts',
  'supply-chain security',
] as const;
const SHOPS = [
  'deskgear',
  'cloudlog',
  'paperloop',
  'brewhaus',
  'railpass',
  'fontfoundry',
  'cablecorner',
  'hostly',
  'greenbox',
  'ticketeer',
  'bookcrate',
  'snapprint',
] as const;
const PRODUCTS = [
  'Ergonomic monitor arm',
  'USB-C dock, 11-in-1',
  'Mechanical keyboard',
  'Noise-cancelling headset',
  'Standing desk mat',
  'Team plan (10 seats)',
  'Log ingestion overage',
  'Annual domain renewal',
  'Coffee beans, 1 kg',
  'Train ticket Amsterdam-Berlin',
  'Font licence (web)',
  'HDMI cable, 2 m',
  'Business cards (250)',
  'Conference pass',
] as const;
const CURRENCIES = ['EUR', 'USD', 'GBP'] as const;
const CUSTOMERS = [
  'brightpath',
  'acme-logistics',
  'bluefin-health',
  'orbital-retail',
  'kestrel-bank',
  'mosaic-media',
  'tundra-foods',
  'lumen-edu',
  'harbor-legal',
  'quill-publishing',
] as const;
const FEATURES = [
  'CSV export',
  'SSO login',
  'the billing page',
  'report scheduling',
  'the mobile app',
  'search',
  'file upload',
  'the dashboard',
  'webhook delivery',
  'the calendar sync',
  'PDF invoices',
  'bulk edit',
] as const;
const ERRORS = [
  'fails with 500 error',
  'crashes on save',
  'throws an exception',
  'is broken after the update',
  'times out',
  'shows a blank page',
  'returns the wrong totals',
  'keeps failing',
] as const;
const FRAMES = [
  'formatCell',
  'buildRow',
  'ReportExporter.stream',
  'SessionStore.get',
  'parseDate',
  'InvoiceRenderer.render',
  'UploadQueue.flush',
  'SyncEngine.tick',
  'SearchIndex.query',
  'Webhook.deliver',
] as const;
const COLLEAGUE_ASKS = [
  (n: number) => `Could you review PR #${n} before Thursday?`,
  () => `Agenda for tomorrow's planning sync`,
  () => 'Lunch on Friday?',
  () => 'Thoughts on the Q3 roadmap draft?',
  (n: number) => `Feedback on the RFC-${n} rollout plan`,
  () => "Moving Thursday's sync to 14:00?",
  () => 'Can you cover on-call next week?',
  (n: number) => `Meeting notes: incident ${n} review`,
] as const;
const PITCH_FIRMS = [
  'synergia-growth',
  'leadforge',
  'scaleup-partners',
  'apex-outreach',
  'growthlane',
  'nimbus-ventures',
  'brightreach',
  'pipelinepro',
] as const;
const PITCH_SUBJECTS = [
  'Strategic partnership opportunity: Northwind x {firm}',
  'Quick idea to 3x your pipeline',
  'Investment opportunity for Northwind',
  'Collaboration proposal from {firm}',
  'Partner with us for EMEA expansion',
] as const;
const FREEMAIL = ['fastmail.example', 'mailbox.example', 'posteo.example', 'proton.example'] as const;
const AMBIGUOUS_SUBJECTS = [
  'Following up',
  'Quick question',
  'Re: last week',
  'Checking in',
  'Hello again',
  'About that thing',
  'One more thing',
  'Any news?',
] as const;
const PHISH_SUBJECTS = [
  'Action required: your password expires in 24 hours',
  'Unusual sign-in detected on your account',
  'Your account suspended: verify your account now',
] as const;
const FILLER = [
  'as discussed',
  'when you have a moment',
  'no rush',
  'let me know',
  'happy to chat',
  'for context',
  'in the meantime',
  'looking forward',
  'thanks in advance',
  'quick note',
  'on our side',
  'to be clear',
] as const;

const slug = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');

function person(rng: SeededRandom): { first: string; last: string; name: string } {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  return { first, last, name: `${first} ${last}` };
}

function sentence(rng: SeededRandom): string {
  const words = rng.some(FILLER, rng.int(1, 3)).join(', ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

interface Draft {
  from: string;
  fromName: string;
  subject: string;
  body: string;
  listUnsubscribe?: string;
}

function newsletter(rng: SeededRandom, i: number): Draft {
  const brand = `${rng.pick(BRANDS)} ${rng.pick(BRAND_SUFFIX)}`;
  const domain = `${slug(brand).replace(/\./g, '')}.example`;
  const topics = rng.some(TOPICS, rng.int(3, 6));
  const token = rng.hex(8);
  const issue = rng.int(10, 400);
  return {
    from: `${rng.pick(['digest', 'news', 'hello', 'newsletter'])}@${domain}`,
    fromName: brand,
    subject: `${brand} #${issue}: ${topics.slice(0, 2).join(', ')}`,
    listUnsubscribe: `<https://${domain}/unsubscribe?u=${token}>${rng.chance(0.5) ? `, <mailto:unsubscribe-${token}@${domain}>` : ''}`,
    body: [
      `This week in ${brand} (issue ${issue}, item ${i})`,
      '',
      ...topics.map((t, k) => `${k + 1}. ${t}: ${sentence(rng)} ${sentence(rng)}`),
      '',
      `Tool of the week: ${rng.pick(TOPICS).toLowerCase()}.`,
      '',
      `You are receiving this because you subscribed at ${domain}.`,
      `Unsubscribe: https://${domain}/unsubscribe?u=${token}`,
    ].join('\n'),
  };
}

function receipt(rng: SeededRandom): Draft {
  const shop = rng.pick(SHOPS);
  const currency = rng.pick(CURRENCIES);
  const lines = rng
    .some(PRODUCTS, rng.int(1, 4))
    .map((p) => ({ p, amount: rng.int(5, 400) + rng.int(0, 99) / 100 }));
  const total = lines.reduce((s, l) => s + l.amount, 0);
  const ref = `${shop.slice(0, 2).toUpperCase()}-${rng.int(10000, 99999)}`;
  const invoice = rng.chance(0.4);
  return {
    from: `${invoice ? 'billing' : rng.pick(['orders', 'receipts', 'noreply'])}@${shop}.example`,
    fromName: `${shop.charAt(0).toUpperCase()}${shop.slice(1)}${invoice ? ' Billing' : ''}`,
    subject: invoice
      ? `Your invoice INV-${ref} is ready`
      : rng.pick([`Order confirmation #${ref}`, `Your receipt for order ${ref}`]),
    body: [
      'Hi Alex,',
      '',
      invoice
        ? `Your invoice INV-${ref} is ready.`
        : `Thanks for your order! Here's your receipt for order #${ref}.`,
      '',
      ...lines.map((l) => `  1 x ${l.p.padEnd(32)} ${currency} ${l.amount.toFixed(2).padStart(8)}`),
      `  Total charged to card ending ${rng.int(1000, 9999)}  ${currency} ${total.toFixed(2).padStart(8)}`,
      '',
      invoice
        ? 'The payment will be charged automatically.'
        : "We'll email you a tracking link when it ships.",
      `${shop} customer care`,
    ].join('\n'),
  };
}

function bugReport(rng: SeededRandom): Draft {
  const who = person(rng);
  const customer = rng.pick(CUSTOMERS);
  const feature = rng.pick(FEATURES);
  const error = rng.pick(ERRORS);
  const frames = rng.some(FRAMES, rng.int(2, 4));
  return {
    from: `${slug(who.name)}@${customer}.example`,
    fromName: who.name,
    subject: `${feature.charAt(0).toUpperCase()}${feature.slice(1)} ${error} since ${rng.pick(['yesterday', 'Monday', 'the last release', 'this morning'])}`,
    body: [
      'Hi,',
      '',
      `Since ${rng.pick(['the latest update', "yesterday's deploy", 'this morning'])}, ${feature} ${error}. Steps:`,
      '',
      `1. Open ${feature}`,
      `2. ${rng.pick(['Click Export', 'Save the form', 'Upload a file', 'Apply a filter'])}`,
      `3. Error after ~${rng.int(2, 30)} seconds`,
      '',
      `  TypeError: Cannot read properties of undefined (reading '${rng.pick(['toISOString', 'id', 'length', 'map'])}')`,
      ...frames.map(
        (f) =>
          `      at ${f} (/app/server/${slug(f).split('.')[0]}.js:${rng.int(10, 400)}:${rng.int(2, 40)})`,
      ),
      '',
      `${sentence(rng)} We need this fixed for ${rng.pick(['our board meeting', 'month-end close', 'a customer demo'])}.`,
      '',
      who.name,
      `${customer}`,
    ].join('\n'),
  };
}

function colleague(rng: SeededRandom): Draft {
  const who = person(rng);
  const n = rng.int(100, 999);
  const subject = rng.pick(COLLEAGUE_ASKS)(n);
  return {
    from: `${slug(who.name)}@${OWN_DOMAIN}`,
    fromName: who.name,
    subject,
    body: [
      'Hey Alex,',
      '',
      `${subject} ${sentence(rng)}`,
      `${sentence(rng)} Could you let me know by ${rng.pick(['tomorrow', 'Thursday', 'end of week'])}?`,
      '',
      'Thanks!',
      who.first,
    ].join('\n'),
  };
}

function pitch(rng: SeededRandom): Draft {
  const who = person(rng);
  const firm = rng.pick(PITCH_FIRMS);
  const firmName = firm
    .split('-')
    .map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`)
    .join(' ');
  return {
    from: `${slug(who.first)}@${firm}.example`,
    fromName: who.name,
    subject: rng.pick(PITCH_SUBJECTS).replace('{firm}', firmName),
    body: [
      'Dear Alex,',
      '',
      `I lead partnerships at ${firmName}. We help B2B software companies unlock new revenue channels.`,
      `Our partners typically see a ${rng.int(15, 60)}% uplift in qualified pipeline within two quarters.`,
      '',
      `Could we set up a ${rng.pick([15, 20, 30])}-minute call this week? Deck: https://${firm}.example/deck/northwind`,
      '',
      'Best regards,',
      who.name,
    ].join('\n'),
  };
}

function ambiguous(rng: SeededRandom): Draft {
  const who = person(rng);
  return {
    from: `${slug(who.name)}@${rng.pick(FREEMAIL)}`,
    fromName: who.name,
    subject: rng.pick(AMBIGUOUS_SUBJECTS),
    body: ['Hi Alex,', '', `${sentence(rng)} ${sentence(rng)}`, '', 'Cheers,', who.first].join('\n'),
  };
}

function phishing(rng: SeededRandom): Draft {
  const lookalike = rng.pick(['northwlnd-support', 'north-wind-it', 'northwind-helpdesk-secure']);
  return {
    from: `security@${lookalike}.example`,
    fromName: 'Northwind IT Helpdesk',
    subject: rng.pick(PHISH_SUBJECTS),
    body: [
      'Dear employee,',
      '',
      `Our records show that the password for ${RECIPIENT} expires in 24 hours.`,
      `To avoid losing access, verify your account now: http://${lookalike}.example/verify?user=${rng.hex(6)}`,
      '',
      'If you do not verify within 24 hours your account will be suspended.',
    ].join('\n'),
  };
}

const MAKERS: Record<MailKind, (rng: SeededRandom, i: number) => Draft> = {
  newsletter,
  receipt,
  bug_report: bugReport,
  colleague,
  pitch,
  ambiguous,
  phishing,
};

export interface GeneratedInbox {
  messages: MessageSpec[];
  kinds: Record<MailKind, number>;
}

/** `count` messages from `seed`, oldest first; a given (count, seed) always gives the same inbox. */
export function generateInbox(count: number, seed = DEFAULT_SEED): GeneratedInbox {
  const rng = new SeededRandom(seed);
  const kinds = Object.fromEntries(KIND_WEIGHTS.map(([k]) => [k, 0])) as Record<MailKind, number>;
  const messages: MessageSpec[] = [];
  let at = BASE_DATE;
  for (let i = 0; i < count; i++) {
    const kind = rng.weighted(KIND_WEIGHTS);
    kinds[kind] += 1;
    const draft = MAKERS[kind](rng, i);
    at += rng.int(1, 180) * 60_000;
    const domain = draft.from.split('@')[1] ?? 'local.example';
    messages.push({
      from: draft.from,
      fromName: draft.fromName,
      to: RECIPIENT,
      subject: draft.subject,
      body: draft.body,
      date: new Date(at),
      messageId: `<bench-${seed.toString(16)}-${i}.${rng.hex(6)}@${domain}>`,
      ...(draft.listUnsubscribe !== undefined ? { listUnsubscribe: draft.listUnsubscribe } : {}),
    });
  }
  return { messages, kinds };
}
