/**
 * The simulated month's inbox: a FIXED population of recurring senders (colleagues, vendors,
 * newsletters, customers, friends, pitch firms and look-alikes of known vendors) plus a few
 * never-seen senders every day, and the person's HIDDEN policy for every message.
 *
 * The policy is what the simulated person answers with; the engine never sees it. It is
 * consistent: a function of the sender (and, for one-off senders, of the kind of mail), and
 * every note the person leaves is true of it: a domain-wide note only for a domain whose
 * mail really all gets the same action.
 */
import { RECIPIENT } from '../generate-mail.ts';
import { SeededRandom } from '../seeded-random.ts';
import type { MessageSpec } from '../../shared/sources/maildir/generate.ts';

export const OWN_DOMAIN = 'northwind.example';
export const DAY_MS = 86_400_000;
/** Day 1 of the simulated month (dates only label the messages; the engine runs in real time). */
const MONTH_START = Date.UTC(2025, 3, 1);

export type Action = 'archive' | 'file_ticket' | 'draft_reply' | 'skip';

export type Segment =
  | 'colleague'
  | 'internal_bot'
  | 'vendor'
  | 'newsletter'
  | 'customer'
  | 'friend'
  | 'pitch'
  | 'lookalike'
  | 'one_off';

type Role =
  | 'ask'
  | 'fyi'
  | 'ci'
  | 'it_notice'
  | 'receipt'
  | 'invoice'
  | 'shipping'
  | 'usage_alert'
  | 'status'
  | 'ticket'
  | 'trip_change'
  | 'newsletter'
  | 'event'
  | 'product_update'
  | 'bug'
  | 'followup'
  | 'chat'
  | 'pitch'
  | 'bump'
  | 'phish_invoice'
  | 'phish_scare';

interface Sender {
  address: string;
  name: string;
  /** What the person calls the organisation (used in notes and bodies). */
  org: string;
  segment: Segment;
  /** The person's action for every message from this sender. */
  action: Action;
  /** Relative share of the recurring mail. */
  weight: number;
  roles: readonly [Role, number][];
  /** For look-alikes: the real vendor domain being imitated. */
  imitates?: string;
  listUnsubscribe?: boolean;
}

const s = (
  address: string,
  name: string,
  org: string,
  segment: Segment,
  action: Action,
  weight: number,
  roles: readonly [Role, number][],
  extra: Partial<Pick<Sender, 'imitates' | 'listUnsubscribe'>> = {},
): Sender => ({ address, name, org, segment, action, weight, roles, ...extra });

/** The recurring population: 36 senders across 18 domains; weights sum to 100. */
export const POPULATION: readonly Sender[] = [
  // Colleagues at the recipient's own domain: the person drafts a reply to each of them,
  // but the same domain also sends automated mail they archive, so northwind.example is
  // NOT a domain with one action.
  s('priya.sharma@northwind.example', 'Priya Sharma', 'Northwind', 'colleague', 'draft_reply', 6, [
    ['ask', 4],
    ['fyi', 1],
  ]),
  s('marco.rossi@northwind.example', 'Marco Rossi', 'Northwind', 'colleague', 'draft_reply', 5, [
    ['ask', 4],
    ['fyi', 1],
  ]),
  s('lena.fischer@northwind.example', 'Lena Fischer', 'Northwind', 'colleague', 'draft_reply', 4, [
    ['ask', 3],
    ['fyi', 1],
  ]),
  s('kenji.tanaka@northwind.example', 'Kenji Tanaka', 'Northwind', 'colleague', 'draft_reply', 3, [
    ['ask', 3],
    ['fyi', 1],
  ]),
  s('sofia.moreau@northwind.example', 'Sofia Moreau', 'Northwind', 'colleague', 'draft_reply', 3, [
    ['ask', 3],
    ['fyi', 1],
  ]),
  s('ci-bot@northwind.example', 'Northwind CI', 'Northwind CI', 'internal_bot', 'archive', 4, [['ci', 1]]),
  s('it-helpdesk@northwind.example', 'Northwind IT', 'Northwind IT', 'internal_bot', 'archive', 2, [
    ['it_notice', 1],
  ]),
  // Vendors: receipts, invoices and notices, all archived (domain-wide).
  s('orders@deskgear.example', 'DeskGear', 'DeskGear', 'vendor', 'archive', 3, [['receipt', 1]]),
  s('billing@deskgear.example', 'DeskGear Billing', 'DeskGear', 'vendor', 'archive', 2, [['invoice', 1]]),
  s('shipping@deskgear.example', 'DeskGear', 'DeskGear', 'vendor', 'archive', 2, [['shipping', 1]]),
  s('billing@cloudlog.example', 'CloudLog Billing', 'CloudLog', 'vendor', 'archive', 2, [['invoice', 1]]),
  s('alerts@cloudlog.example', 'CloudLog', 'CloudLog', 'vendor', 'archive', 3, [['usage_alert', 1]]),
  s('billing@hostly.example', 'Hostly Billing', 'Hostly', 'vendor', 'archive', 2, [['invoice', 1]]),
  s('noreply@hostly.example', 'Hostly', 'Hostly', 'vendor', 'archive', 2, [['status', 1]]),
  s('tickets@railpass.example', 'RailPass', 'RailPass', 'vendor', 'archive', 2, [['ticket', 1]]),
  s('service@railpass.example', 'RailPass Service', 'RailPass', 'vendor', 'archive', 1, [['trip_change', 1]]),
  // Newsletter publishers: archived (domain-wide).
  s(
    'digest@infraweekly.example',
    'Infra Weekly',
    'Infra Weekly',
    'newsletter',
    'archive',
    3,
    [['newsletter', 1]],
    { listUnsubscribe: true },
  ),
  s('newsletter@devreads.example', 'DevReads', 'DevReads', 'newsletter', 'archive', 3, [['newsletter', 1]], {
    listUnsubscribe: true,
  }),
  s('events@devreads.example', 'DevReads Events', 'DevReads', 'newsletter', 'archive', 2, [['event', 1]]),
  s('hello@trackly.example', 'Trackly', 'Trackly', 'newsletter', 'archive', 2, [['newsletter', 1]], {
    listUnsubscribe: true,
  }),
  s('product@trackly.example', 'Trackly Product', 'Trackly', 'newsletter', 'archive', 2, [
    ['product_update', 1],
  ]),
  // Customers: everything they send goes to the ticket queue (domain-wide).
  s('dana.whitfield@brightpath.example', 'Dana Whitfield', 'BrightPath', 'customer', 'file_ticket', 4, [
    ['bug', 2],
    ['followup', 1],
  ]),
  s('sam.keller@brightpath.example', 'Sam Keller', 'BrightPath', 'customer', 'file_ticket', 2, [
    ['bug', 2],
    ['followup', 1],
  ]),
  s('ines.haddad@kestrel-bank.example', 'Ines Haddad', 'Kestrel Bank', 'customer', 'file_ticket', 3, [
    ['bug', 2],
    ['followup', 1],
  ]),
  s('ravi.nguyen@kestrel-bank.example', 'Ravi Nguyen', 'Kestrel Bank', 'customer', 'file_ticket', 2, [
    ['bug', 2],
    ['followup', 1],
  ]),
  s('it-ops@kestrel-bank.example', 'Kestrel Bank IT Ops', 'Kestrel Bank', 'customer', 'file_ticket', 2, [
    ['bug', 1],
    ['followup', 1],
  ]),
  s('omar.silva@tundra-foods.example', 'Omar Silva', 'Tundra Foods', 'customer', 'file_ticket', 3, [
    ['bug', 2],
    ['followup', 1],
  ]),
  // Friends on a shared freemail domain: a reply to each; strangers there are skipped.
  s('tomi.okafor@fastmail.example', 'Tomi Okafor', 'Tomi', 'friend', 'draft_reply', 3, [['chat', 1]]),
  s('greta.larsen@fastmail.example', 'Greta Larsen', 'Greta', 'friend', 'draft_reply', 2, [['chat', 1]]),
  // Pitch firms that keep writing: skipped (domain-wide).
  s('jamie@leadforge.example', 'Jamie Cole', 'LeadForge', 'pitch', 'skip', 3, [
    ['pitch', 1],
    ['bump', 1],
  ]),
  s('pat@leadforge.example', 'Pat Brennan', 'LeadForge', 'pitch', 'skip', 2, [
    ['pitch', 1],
    ['bump', 1],
  ]),
  s('chris@growthlane.example', 'Chris Vale', 'GrowthLane', 'pitch', 'skip', 2, [
    ['pitch', 1],
    ['bump', 1],
  ]),
  // Look-alikes of known vendors (and of the own domain): skipped. Their display names copy
  // the real vendor's; their domains are other domains (prefix, suffix, subdomain, typo).
  s(
    'billing@deskgear-billing.example',
    'DeskGear Billing',
    'DeskGear',
    'lookalike',
    'skip',
    1,
    [
      ['phish_invoice', 1],
      ['phish_scare', 1],
    ],
    { imitates: 'deskgear.example' },
  ),
  s(
    'billing@cloudlog.example.invoice-center.example',
    'CloudLog Billing',
    'CloudLog',
    'lookalike',
    'skip',
    1,
    [
      ['phish_invoice', 1],
      ['phish_scare', 1],
    ],
    { imitates: 'cloudlog.example' },
  ),
  s(
    'accounts@billing.hostly.example',
    'Hostly Billing',
    'Hostly',
    'lookalike',
    'skip',
    1,
    [
      ['phish_invoice', 1],
      ['phish_scare', 1],
    ],
    { imitates: 'hostly.example' },
  ),
  s(
    'security@northwlnd-support.example',
    'Northwind IT Helpdesk',
    'Northwind IT',
    'lookalike',
    'skip',
    1,
    [['phish_scare', 1]],
    { imitates: OWN_DOMAIN },
  ),
];

/** Domains that senders with different actions share: no true note can be domain-wide there. */
export const SHARED_DOMAINS: ReadonlySet<string> = new Set([
  OWN_DOMAIN,
  'fastmail.example',
  'mailbox.example',
  'posteo.example',
]);
/** Freemail domains one-off strangers write from (one of them is the friends' domain). */
const FREEMAIL = ['fastmail.example', 'mailbox.example', 'posteo.example'] as const;

export const domainOfAddress = (address: string): string => address.slice(address.lastIndexOf('@') + 1);

/** Domains where every message (recurring and one-off) gets one action: domain notes are true only here. */
export const UNIFORM_DOMAINS: ReadonlyMap<string, Action> = (() => {
  const byDomain = new Map<string, Set<Action>>();
  for (const sender of POPULATION) {
    const domain = domainOfAddress(sender.address);
    byDomain.set(domain, (byDomain.get(domain) ?? new Set()).add(sender.action));
  }
  const uniform = new Map<string, Action>();
  for (const [domain, actions] of byDomain) {
    if (SHARED_DOMAINS.has(domain)) continue;
    if (actions.size !== 1)
      throw new Error(`population: ${domain} has mixed actions but is not declared shared`);
    uniform.set(domain, [...actions][0]!);
  }
  return uniform;
})();

// ---------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------

/** Independent stream per (seed, day, salt): one day's mail does not depend on another's draws. */
const streamFor = (seed: number, day: number, salt: number): SeededRandom =>
  new SeededRandom((seed ^ Math.imul(day + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0);

// ---------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------

const TOPICS = [
  'Postgres 17 upgrades',
  'eBPF tracing',
  'sane on-call',
  'feature flags',
  'structured logging',
  'idempotent webhooks',
  'zero-downtime migrations',
  'queue backpressure',
  'SLOs that mean something',
  'incident reviews',
  'monorepo tooling',
  'HTTP/3 rollouts',
] as const;
const FEATURES = [
  'CSV export',
  'SSO login',
  'the billing page',
  'report scheduling',
  'search',
  'file upload',
  'the dashboard',
  'webhook delivery',
  'PDF invoices',
] as const;
const ERRORS = [
  'fails with 500 error',
  'crashes on save',
  'throws an exception',
  'is broken after the update',
  'times out',
  'returns the wrong totals',
] as const;
const PRODUCTS = [
  'Ergonomic monitor arm',
  'USB-C dock, 11-in-1',
  'Mechanical keyboard',
  'Noise-cancelling headset',
  'Standing desk mat',
  'HDMI cable, 2 m',
] as const;
const ASKS = [
  (n: number) => `Could you review PR #${n} before Thursday?`,
  () => `Agenda for tomorrow's planning sync`,
  () => 'Lunch on Friday?',
  () => 'Thoughts on the Q3 roadmap draft?',
  (n: number) => `Feedback on the RFC-${n} rollout plan`,
  () => 'Can you cover on-call next week?',
] as const;
const FYIS = [
  'Slides from the all-hands',
  'FYI: the offsite venue is booked',
  'Notes from the customer call',
  'Re: the hiring loop for the SRE role',
] as const;
const CHATS = [
  'Coffee next week?',
  'Photos from the weekend',
  'Following up',
  'Long time no see',
  'That book I mentioned',
] as const;
const STRANGER_SUBJECTS = ['Quick question', 'Hello', 'Checking in', 'Introduction', 'A request'] as const;
const FIRST = [
  'Alina',
  'Boris',
  'Carmen',
  'Dev',
  'Emre',
  'Farah',
  'Gus',
  'Hana',
  'Ivo',
  'Jules',
  'Kai',
  'Lior',
];
const LAST = ['Baker', 'Costa', 'Dumas', 'Eriksen', 'Ferro', 'Gold', 'Hale', 'Ito', 'Jovic', 'Kane'];
const FIRMS = ['synergia', 'apexreach', 'pipelinepro', 'nimbusvc', 'scaleup', 'brightreach', 'outboundly'];
const BRANDS = [
  'Cloud Brief',
  'Data Digest',
  'Ops Roundup',
  'Byte Insider',
  'Frontend Monthly',
  'Rust Reads',
];

const cap = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const firstName = (sender: Sender): string => sender.name.split(' ')[0] ?? sender.name;

interface Draft {
  subject: string;
  body: string;
  listUnsubscribe?: string;
}

function write(role: Role, sender: Sender, rng: SeededRandom, day: number): Draft {
  const domain = domainOfAddress(sender.address);
  const ref = `${sender.org.slice(0, 2).toUpperCase()}-${rng.int(10000, 99999)}`;
  const amount = () => `EUR ${(rng.int(9, 480) + rng.int(0, 99) / 100).toFixed(2)}`;
  switch (role) {
    case 'ask': {
      const subject = rng.pick(ASKS)(rng.int(100, 999));
      return {
        subject,
        body: `Hey Alex,\n\n${subject} Could you let me know by ${rng.pick(['tomorrow', 'Thursday', 'end of week'])}?\n\nThanks!\n${firstName(sender)}`,
      };
    }
    case 'fyi':
      return {
        subject: rng.pick(FYIS),
        body: `Hi Alex,\n\nSharing this so you have it, nothing urgent.\n\n${firstName(sender)}`,
      };
    case 'ci': {
      const n = rng.int(1000, 9999);
      return rng.chance(0.6)
        ? {
            subject: `[CI] main build #${n} passed`,
            body: `Build #${n} on main passed in ${rng.int(4, 19)} min.\nAll ${rng.int(900, 1400)} checks green.`,
          }
        : {
            subject: `[CI] nightly #${n}: ${rng.int(1, 6)} flaky checks retried`,
            body: `Nightly run #${n} finished after retries.\nSee the dashboard for the flaky list.`,
          };
    }
    case 'it_notice':
      return {
        subject: rng.pick([
          'Scheduled maintenance: VPN on Saturday',
          'New laptop rollout schedule',
          'Office wifi change on Monday',
        ]),
        body: 'Hello all,\n\nA short notice from the IT team for everyone at Northwind. No action needed.\n\nNorthwind IT',
      };
    case 'receipt':
      return {
        subject: `Your receipt for order ${ref}`,
        body: `Hi Alex,\n\nThanks for your order! Here's your receipt for order #${ref}.\n\n  1 x ${rng.pick(PRODUCTS)}  ${amount()}\n  Total charged to card ending ${rng.int(1000, 9999)}\n\n${sender.org} customer care`,
      };
    case 'invoice':
      return {
        subject: `Your invoice INV-${ref} is ready`,
        body: `Hello Northwind team,\n\nYour invoice INV-${ref} for this month is ready.\nTotal ${amount()}, charged automatically to the card on file.\n\n${sender.org} Billing`,
      };
    case 'shipping':
      return {
        subject: `On its way: ${ref}`,
        body: `Hi Alex,\n\nGood news: your parcel ${ref} left our warehouse. Track it at https://${domain}/track/${ref}.\n\n${sender.org}`,
      };
    case 'usage_alert':
      return {
        subject: `Usage alert: ${rng.pick([70, 80, 90])}% of your log quota used`,
        body: `Hi,\n\nYour workspace has used most of its log quota for the period. Nothing breaks when you reach it; extra logs are sampled.\n\n${sender.org}`,
      };
    case 'status':
      return {
        subject: `Planned maintenance for server ${rng.hex(4)}`,
        body: `Hi,\n\nWe will move your server to new hardware on ${rng.pick(['Tuesday', 'Wednesday', 'Sunday'])} night. Expect a few minutes of downtime.\n\n${sender.org}`,
      };
    case 'ticket':
      return {
        subject: `Your e-ticket ${ref}: Amsterdam - Berlin`,
        body: `Hi Alex,\n\nYour e-ticket ${ref} is attached. Seat ${rng.int(11, 88)}, coach ${rng.int(1, 9)}.\n\n${sender.org}`,
      };
    case 'trip_change':
      return {
        subject: `Timetable change for your trip ${ref}`,
        body: `Hi Alex,\n\nThe departure of your trip ${ref} moves by ${rng.int(5, 40)} minutes. Your seat stays the same.\n\n${sender.org}`,
      };
    case 'newsletter': {
      const issue = 100 + day * 2 + rng.int(0, 1);
      const topics = [rng.pick(TOPICS), rng.pick(TOPICS), rng.pick(TOPICS)];
      const token = rng.hex(8);
      return {
        subject: `${sender.org} #${issue}: ${topics[0]}, ${topics[1]}`,
        body: `This week in ${sender.org} (issue ${issue})\n\n${topics.map((t, i) => `${i + 1}. ${t}`).join('\n')}\n\nUnsubscribe: https://${domain}/unsubscribe?u=${token}`,
        listUnsubscribe: `<https://${domain}/unsubscribe?u=${token}>`,
      };
    }
    case 'event':
      return {
        subject: `Live session: ${rng.pick(TOPICS)} - save your seat`,
        body: `Hi Alex,\n\nJoin us on ${rng.pick(['Tuesday', 'Thursday'])} for a live session with the authors. Seats are limited.\n\nThe ${sender.org} team`,
      };
    case 'product_update':
      return {
        subject: rng.pick(['Nested projects are here', 'Search got 3x faster', 'New: calendar sync']),
        body: `Hi Alex,\n\nA quick look at what shipped in ${sender.org} recently. Read more on our blog.\n\nThe ${sender.org} team`,
      };
    case 'bug': {
      const feature = rng.pick(FEATURES);
      return {
        subject: `${cap(feature)} ${rng.pick(ERRORS)} since ${rng.pick(['yesterday', 'Monday', 'the last release'])}`,
        body: `Hi,\n\nSince the latest update, ${feature} ${rng.pick(ERRORS)}. Steps: open ${feature}, then save.\n\n  TypeError: Cannot read properties of undefined (reading 'id')\n      at ${rng.pick(['formatCell', 'buildRow', 'SyncEngine.tick'])} (/app/server/index.js:${rng.int(10, 400)}:7)\n\n${sender.name}\n${sender.org}`,
      };
    }
    case 'followup':
      return {
        subject: rng.pick([
          `Any news on ${rng.pick(FEATURES)}?`,
          'Checking in on our request',
          `Re: ${rng.pick(FEATURES)}`,
        ]),
        body: `Hi Alex,\n\nJust checking where this stands on your side; our team keeps asking me.\n\nBest,\n${sender.name}\n${sender.org}`,
      };
    case 'chat':
      return {
        subject: rng.pick(CHATS),
        body: `Hi Alex,\n\nHope all is well. Let me know when you have a moment.\n\nCheers,\n${firstName(sender)}`,
      };
    case 'pitch':
      return {
        subject: `Strategic partnership opportunity: Northwind x ${sender.org}`,
        body: `Dear Alex,\n\nI lead partnerships at ${sender.org}. Our partners typically see a ${rng.int(15, 60)}% uplift in qualified pipeline.\nCould we set up a 20-minute call this week?\n\nBest regards,\n${sender.name}`,
      };
    case 'bump':
      return {
        subject: `Re: a quick idea for Northwind`,
        body: `Hi Alex,\n\nJust bumping this to the top of your inbox. Would ${rng.pick(['Tuesday', 'Wednesday', 'Friday'])} work for a short call?\n\n${sender.name}, ${sender.org}`,
      };
    case 'phish_invoice':
      return {
        subject: `Your invoice INV-${ref} is ready`,
        body: `Hello,\n\nYour invoice INV-${ref} (${amount()}) could not be charged. Update your payment method within 48 hours: https://${domain}/pay/${rng.hex(6)}\n\n${sender.org} Billing`,
      };
    case 'phish_scare':
      return {
        subject: rng.pick([
          'Action required: your password expires in 24 hours',
          'Unusual sign-in detected on your account',
          'Your account suspended: verify your account now',
        ]),
        body: `Dear customer,\n\nTo avoid losing access, verify your account now: http://${domain}/verify?user=${rng.hex(6)}\n\n${sender.name}`,
      };
  }
}

// ---------------------------------------------------------------------------
// The person's notes (always true to the hidden policy)
// ---------------------------------------------------------------------------

export type NoteScope = 'domain' | 'sender';

const DOMAIN_NOTES: Record<Action, readonly ((org: string, domain: string) => string)[]> = {
  archive: [
    () => 'Anything from this company can be archived.',
    (org) => `Archive everything from ${org}; none of it needs me.`,
    (_org, domain) => `All mail from ${domain} can go straight to the archive.`,
  ],
  file_ticket: [
    () => 'Anything from this customer should become a ticket.',
    (org) => `${org} is a customer: always file whatever they send as a ticket.`,
  ],
  skip: [
    (org) => `Ignore everything from ${org}, we are not interested.`,
    () => 'Skip anything from this company.',
  ],
  draft_reply: [() => 'Always draft a reply to anyone at this company.'],
};
const LOOKALIKE_NOTES = [
  (org: string) => `This is not the real ${org}. Skip anything from this domain.`,
  () => 'Fake look-alike domain: skip everything from it.',
] as const;
const SENDER_NOTES: Record<Action, readonly ((first: string, address: string) => string)[]> = {
  archive: [
    () => 'Always archive mail from this sender.',
    (_first, address) => `${address} only sends notifications; archive them.`,
  ],
  file_ticket: [
    (first) => `Always file bugs from ${first} as tickets.`,
    () => 'Always file bugs from this customer.',
  ],
  draft_reply: [
    (first) => `Always draft a reply to ${first}.`,
    (first) => `I always answer ${first}; draft a reply.`,
  ],
  skip: [() => 'Never heard of them; skip.', () => 'Skip this sender.'],
};

interface Note {
  text: string;
  scope: NoteScope;
}

/**
 * About half of the answers carry a note. A note is domain-wide only where the whole domain
 * really gets one action; otherwise it speaks about this sender alone.
 */
function noteFor(sender: Sender, rng: SeededRandom): Note | null {
  if (rng.chance(0.5)) return null;
  const domain = domainOfAddress(sender.address);
  // A one-off's own domain (a pitch firm, a new newsletter) is uniform; a shared freemail one is not.
  const uniform = SHARED_DOMAINS.has(domain)
    ? undefined
    : (UNIFORM_DOMAINS.get(domain) ?? (sender.segment === 'one_off' ? sender.action : undefined));
  if (uniform !== undefined && uniform === sender.action && rng.chance(0.6)) {
    const text =
      sender.segment === 'lookalike'
        ? rng.pick(LOOKALIKE_NOTES)(sender.org)
        : rng.pick(DOMAIN_NOTES[sender.action])(sender.org, domain);
    return { text, scope: 'domain' };
  }
  return { text: rng.pick(SENDER_NOTES[sender.action])(firstName(sender), sender.address), scope: 'sender' };
}

// ---------------------------------------------------------------------------
// One-off senders (never seen before; a few every day)
// ---------------------------------------------------------------------------

function oneOff(
  rng: SeededRandom,
  day: number,
  index: number,
): { sender: Sender; role: Role; draft?: Draft } {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  const tag = `${day}${index}${rng.int(10, 99)}`;
  const kind = rng.weighted([
    ['stranger', 4],
    ['cold_pitch', 3],
    ['new_newsletter', 2],
    ['recruiter', 1],
  ] as const);
  switch (kind) {
    case 'stranger': {
      // Strangers share the freemail domains with the person's friends: skipped, one by one.
      const address = `${first.toLowerCase()}.${last.toLowerCase()}${tag}@${rng.pick(FREEMAIL)}`;
      const sender = s(address, `${first} ${last}`, `${first} ${last}`, 'one_off', 'skip', 0, [['chat', 1]]);
      return {
        sender,
        role: 'chat',
        draft: {
          subject: rng.pick(STRANGER_SUBJECTS),
          body: `Hi Alex,\n\nI got your address from a friend of a friend. Could we talk sometime?\n\n${first}`,
        },
      };
    }
    case 'cold_pitch': {
      const firm = `${rng.pick(FIRMS)}-${tag}`;
      const org = cap(firm.split('-')[0] ?? firm);
      const sender = s(
        `${first.toLowerCase()}@${firm}.example`,
        `${first} ${last}`,
        org,
        'one_off',
        'skip',
        0,
        [['pitch', 1]],
      );
      return { sender, role: 'pitch' };
    }
    case 'new_newsletter': {
      const brand = rng.pick(BRANDS);
      const domain = `${brand.toLowerCase().replace(/\s+/g, '')}-${tag}.example`;
      const sender = s(`news@${domain}`, brand, brand, 'one_off', 'archive', 0, [['newsletter', 1]]);
      return { sender, role: 'newsletter' };
    }
    case 'recruiter': {
      const domain = `talent-${tag}.example`;
      const sender = s(
        `${first.toLowerCase()}@${domain}`,
        `${first} ${last}`,
        'this recruiting agency',
        'one_off',
        'skip',
        0,
        [['pitch', 1]],
      );
      return {
        sender,
        role: 'pitch',
        draft: {
          subject: 'An exciting opportunity for you',
          body: `Hi Alex,\n\nI am hiring for a fast-growing startup and your profile stood out. Open to a chat?\n\n${first} ${last}`,
        },
      };
    }
  }
}

// ---------------------------------------------------------------------------
// A day's mail
// ---------------------------------------------------------------------------

/** What only the benchmark knows about a message. */
export interface Truth {
  item_id: string;
  day: number;
  sender: string;
  domain: string;
  segment: Segment;
  /** The hidden policy's action for this message. */
  action: Action;
  /** What the person writes if asked (null: no note). */
  note: string | null;
  note_scope: NoteScope | null;
  /** For look-alikes: the real domain imitated. */
  imitates: string | null;
}

export interface DayMail {
  messages: MessageSpec[];
  truths: Truth[];
}

export const MIN_PER_DAY = 10;
export const MAX_PER_DAY = 20;

/** The bare Message-ID (no angle brackets, lower case): how audit item ids map back to truths. */
export const itemKey = (id: string): string => id.trim().replace(/^<|>$/g, '').toLowerCase();

/** Day `day` (1-based) of the month: 10-20 messages, 1-3 of them from never-seen senders. */
export function mailForDay(seed: number, day: number): DayMail {
  const rng = streamFor(seed, day, 0);
  const count = rng.int(MIN_PER_DAY, MAX_PER_DAY);
  const oneOffs = rng.int(1, 3);
  const picks: { sender: Sender; role: Role; draft?: Draft }[] = [];
  const recurring = POPULATION.map((p) => [p, p.weight] as const);
  for (let i = 0; i < count - oneOffs; i++) {
    const sender = rng.weighted(recurring);
    picks.push({ sender, role: rng.weighted(sender.roles) });
  }
  for (let i = 0; i < oneOffs; i++) picks.splice(rng.int(0, picks.length), 0, oneOff(rng, day, i));

  const messages: MessageSpec[] = [];
  const truths: Truth[] = [];
  const dayStart = MONTH_START + (day - 1) * DAY_MS + 6 * 3_600_000;
  const minutes = picks.map(() => rng.int(0, 16 * 60)).sort((a, b) => a - b);
  picks.forEach((pick, i) => {
    const { sender } = pick;
    const domain = domainOfAddress(sender.address);
    const draft = pick.draft ?? write(pick.role, sender, rng, day);
    const messageId = `<learn-${seed.toString(16)}-d${day}-${i}.${rng.hex(8)}@${domain}>`;
    const unsubscribe =
      draft.listUnsubscribe ??
      (sender.listUnsubscribe ? `<https://${domain}/unsubscribe?u=${rng.hex(8)}>` : undefined);
    messages.push({
      from: sender.address,
      fromName: sender.name,
      to: RECIPIENT,
      subject: draft.subject,
      body: draft.body,
      date: new Date(dayStart + (minutes[i] ?? 0) * 60_000),
      messageId,
      ...(unsubscribe !== undefined ? { listUnsubscribe: unsubscribe } : {}),
    });
    // A separate stream per message for the note, so notes do not shift with content draws.
    const note = noteFor(sender, streamFor(seed, day, 1000 + i));
    truths.push({
      item_id: itemKey(messageId),
      day,
      sender: sender.address,
      domain,
      segment: sender.segment,
      action: sender.action,
      note: note?.text ?? null,
      note_scope: note?.scope ?? null,
      imitates: sender.imitates ?? null,
    });
  });
  return { messages, truths };
}

/** The policy as the person would state it (for the report; the engine never sees this). */
export function describePolicy(): {
  domain_wide: Record<string, Action>;
  per_sender: Record<string, Action>;
} {
  const perSender: Record<string, Action> = {};
  for (const p of POPULATION)
    if (!UNIFORM_DOMAINS.has(domainOfAddress(p.address))) perSender[p.address] = p.action;
  return { domain_wide: Object.fromEntries(UNIFORM_DOMAINS), per_sender: perSender };
}

export const POPULATION_DOMAINS = new Set(POPULATION.map((p) => domainOfAddress(p.address)));
