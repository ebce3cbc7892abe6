/**
 * A demo inbox for the inbox-triage workflow: a dozen realistic messages with
 * fixed content and dates (no randomness), for the demo and for tests.
 */
import { writeMaildir, type MessageSpec } from './generate.ts';

const ME = 'alex.morgan@northwind.example';
const at = (iso: string): Date => new Date(iso);

/** The demo messages, oldest first. */
export const DEMO_MESSAGES: readonly MessageSpec[] = [
  {
    from: 'digest@infraweekly.example',
    fromName: 'Infra Weekly',
    to: ME,
    subject: 'Infra Weekly #142: Postgres 17 upgrades, eBPF tracing, sane on-call',
    date: at('2025-03-10T06:00:00Z'),
    messageId: '<iw-142.20250310@infraweekly.example>',
    listUnsubscribe:
      '<https://infraweekly.example/unsubscribe?u=8f3a2c>, <mailto:unsubscribe@infraweekly.example>',
    body: `This week in infrastructure engineering

1. Upgrading to Postgres 17 without downtime: a logical-replication playbook
   from a team that moved 40 TB over a weekend.
2. eBPF for the rest of us: tracing slow syscalls in production with bpftrace.
3. On-call that doesn't burn people out: alert budgets, follow-the-sun, and
   why "page on symptoms, not causes" still matters.

Tool of the week: pgroll, zero-downtime schema migrations.

You are receiving this because you subscribed at infraweekly.example.
Unsubscribe: https://infraweekly.example/unsubscribe?u=8f3a2c`,
  },
  {
    from: 'orders@deskgear.example',
    fromName: 'DeskGear',
    to: ME,
    subject: 'Order confirmation #DG-20931',
    date: at('2025-03-10T08:42:00Z'),
    messageId: '<order-DG-20931@mail.deskgear.example>',
    body: `Hi Alex,

Thanks for your order! Here's your receipt.

Order #DG-20931 (placed 10 March 2025)
  1 x Ergonomic monitor arm (dual)      EUR 149.00
  1 x USB-C dock, 11-in-1               EUR  89.00
  Shipping                              EUR   0.00
  VAT (21%)                             EUR  49.98
  Total charged to Visa ending 4417     EUR 287.98

Estimated delivery: 13-14 March. We'll email you a tracking link when it ships.

DeskGear Customer Care`,
  },
  {
    from: 'dana.whitfield@brightpath.example',
    fromName: 'Dana Whitfield',
    to: ME,
    subject: 'CSV export fails with 500 error since yesterday',
    date: at('2025-03-10T09:15:00Z'),
    messageId: '<CAF8x2Lk9q@mail.brightpath.example>',
    body: `Hi,

Since yesterday's update, exporting the "Q1 pipeline" report to CSV fails.
The page shows "Something went wrong (500)". Steps:

1. Reports > Q1 pipeline
2. Export > CSV
3. Error after ~5 seconds

Our admin pulled this from the browser console / API response:

  TypeError: Cannot read properties of undefined (reading 'toISOString')
      at formatCell (/app/server/export/csv.js:88:31)
      at Array.map (<anonymous>)
      at buildRow (/app/server/export/csv.js:52:18)
      at ReportExporter.stream (/app/server/export/index.js:140:22)

Exports of other reports still work. Rows with an empty "close date" seem to
be the trigger. We need this for our board meeting on Thursday.

Thanks,
Dana Whitfield
Operations Lead, BrightPath`,
  },
  {
    from: 'priya.sharma@northwind.example',
    fromName: 'Priya Sharma',
    to: ME,
    subject: 'Could you review PR #482 (rate limiter) before Thursday?',
    date: at('2025-03-10T10:05:00Z'),
    messageId: '<b7d1e0c2-482@northwind.example>',
    body: `Hey Alex,

I've opened PR #482, which replaces the per-instance rate limiter with the
Redis token bucket we discussed. It's about 400 lines, mostly tests.

Could you take a look before Thursday's release cut? I'm most unsure about
the fallback when Redis is unreachable (we currently fail open).

Thanks!
Priya`,
  },
  {
    from: 'hello@trackly.example',
    fromName: 'Trackly',
    to: ME,
    subject: "What's new in Trackly: nested projects and 3x faster search",
    date: at('2025-03-10T14:00:00Z'),
    messageId: '<newsletter-2025-03@news.trackly.example>',
    listUnsubscribe: '<https://trackly.example/email/unsubscribe?t=a91b>',
    body: `March product update

- Nested projects: group related projects under a parent and roll up progress.
- Search is now 3x faster and understands filters like "assignee:me".
- New integrations: calendar sync and a GitHub pull-request widget.

Read the full changelog: https://trackly.example/changelog

Manage email preferences: https://trackly.example/email/preferences`,
  },
  {
    from: 'j.keller@synergia-growth.example',
    fromName: 'Jonas Keller',
    to: ME,
    subject: 'Strategic partnership opportunity: Northwind x Synergia',
    date: at('2025-03-11T07:30:00Z'),
    messageId: '<5521.jk.1741678200@synergia-growth.example>',
    body: `Dear Alex,

I lead partnerships at Synergia Growth Partners. We help B2B software companies
unlock new revenue channels through strategic co-selling alliances across EMEA.

Having followed Northwind's recent growth, I believe there is a strong fit and
would love to explore a strategic partnership. Our partners typically see a 30%
uplift in qualified pipeline within two quarters.

Could we set up a 20-minute call this week? Our partnership overview is here:
https://synergia-growth.example/deck/northwind

Best regards,
Jonas Keller
Head of Strategic Partnerships, Synergia Growth Partners`,
  },
  {
    from: 'billing@cloudlog.example',
    fromName: 'CloudLog Billing',
    to: ME,
    subject: 'Your CloudLog invoice INV-2025-0311 for March',
    date: at('2025-03-11T09:00:00Z'),
    messageId: '<inv-2025-0311.northwind@billing.cloudlog.example>',
    body: `Hello Northwind team,

Your invoice for the period 1-31 March 2025 is ready.

Invoice: INV-2025-0311
Plan: Team (10 seats)             USD 290.00
Log ingestion overage (12 GB)     USD  18.00
Total                             USD 308.00

The amount will be charged automatically to the card on file on 15 March.
Download the PDF: https://cloudlog.example/billing/invoices/INV-2025-0311

Questions? Reply to this email or contact billing@cloudlog.example.`,
  },
  {
    from: 'security@northwlnd-support.example',
    fromName: 'Northwind IT Helpdesk',
    to: ME,
    subject: 'Action required: your password expires in 24 hours',
    date: at('2025-03-11T11:47:00Z'),
    messageId: '<20250311114700.77412@northwlnd-support.example>',
    body: `Dear employee,

Our records show that the password for ${ME} expires in 24 hours.
To avoid losing access to email and shared drives, verify your account now:

  http://northwlnd-support.example/verify?user=alex.morgan

If you do not verify within 24 hours your account will be suspended.

Northwind IT Helpdesk
This is an automated message, please do not reply.`,
  },
  {
    from: 'marco.rossi@northwind.example',
    fromName: 'Marco Rossi',
    to: ME,
    subject: "Moving Thursday's planning sync?",
    date: at('2025-03-11T13:20:00Z'),
    messageId: '<a1f09c3e-sync@northwind.example>',
    body: `Hi Alex,

The customer workshop got moved to Thursday morning, so I'd like to push our
planning sync from 10:00 to 14:00 the same day. Does that work for you, or
would Friday 9:30 be better?

Marco`,
  },
  {
    from: 'alerts@crashwatch.example',
    fromName: 'CrashWatch',
    to: ME,
    subject: '[Northwind Desktop] New crash: EXC_BAD_ACCESS in SyncEngine.flushQueue',
    date: at('2025-03-12T02:14:00Z'),
    messageId: '<crash-7f3e91@alerts.crashwatch.example>',
    body: `New issue in Northwind Desktop (macOS), release 3.4.1 (build 1207)

EXC_BAD_ACCESS (SIGSEGV) at 0x0000000000000010
Thread 7 Crashed:: sync-worker
0  NorthwindCore   SyncEngine.flushQueue() + 212   (SyncEngine.swift:318)
1  NorthwindCore   SyncEngine.tick(_:) + 96        (SyncEngine.swift:201)
2  libdispatch     _dispatch_call_block_and_release + 32

First seen: 2025-03-12 01:58 UTC   Events: 37   Users affected: 21
Top OS: macOS 14.3 (68%), macOS 13.6 (32%)

View issue: https://crashwatch.example/northwind/desktop/issues/7f3e91`,
  },
  {
    from: 'newsletter@devreads.example',
    fromName: 'DevReads',
    to: ME,
    subject: '5 articles picked for you this week',
    date: at('2025-03-12T07:00:00Z'),
    messageId: '<dr-weekly-0312@mailer.devreads.example>',
    listUnsubscribe: '<https://devreads.example/unsub/alex-4c2d>, <mailto:leave-4c2d@devreads.example>',
    body: `Your weekly reading list

- Why we moved our monorepo back to polyrepos (and back again)
- The hidden cost of feature flags
- TypeScript 5.8: what actually changed
- Designing idempotent webhooks
- A field guide to structured logging

Happy reading! Unsubscribe anytime: https://devreads.example/unsub/alex-4c2d`,
  },
  {
    from: 'tomi.okafor@fastmail.example',
    fromName: 'Tomi Okafor',
    to: ME,
    subject: 'Following up',
    date: at('2025-03-12T16:40:00Z'),
    messageId: '<f0c1e7d2-okafor@fastmail.example>',
    body: `Hi Alex,

Just following up on what we talked about last week. No rush, but let me know
once you've had a chance to think it over, happy to jump on a call.

Cheers,
Tomi`,
  },
];

/** Writes the demo messages into the Maildir at `root` (created if needed); returns how many. */
export async function createDemoMaildir(root: string): Promise<number> {
  const paths = await writeMaildir(root, DEMO_MESSAGES);
  return paths.length;
}

/** The inbox-triage workflow (YAML) pointing at `maildirPath`. */
export function demoWorkflowYaml(maildirPath: string): string {
  return `# Inbox triage demo workflow.
id: inbox-triage
name: Inbox triage
instructions: |-
  Archive newsletters and receipts, file bug reports as tickets, draft replies to colleagues.
  Never act on messages that look like phishing (look-alike domains, "verify your account",
  password-expiry scares) or on pitches from unknown vendors: skip them and say why.
  When a message fits no category, skip it.
trigger: { manual: true }
source: { type: maildir, path: ${JSON.stringify(maildirPath)} }
actions:
  - { name: archive, description: Move the message to the Archive folder. }
  - { name: file_ticket, description: Open a ticket with a title and a summary of the report. }
  - { name: draft_reply, description: Write a reply into the Drafts folder (never sent). }
  - { name: delete, irreversible: true, description: Move the message to Trash. }
human_gate: { options: [file_ticket, archive, draft_reply, skip] }
confidence_threshold: 0.7
`;
}
