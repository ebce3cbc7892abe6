/**
 * An independent mail generator for the offline model's accuracy bench. Written apart from
 * the offline model: its phrasing, senders and subjects are its own (nothing is drawn from
 * the model's keyword lists), and each part (sender, subject, body sentences, headers) is
 * picked independently, so the same kind of mail arrives in many shapes. Each message
 * carries what a careful person would accept under the inbox-triage instructions
 * ("archive newsletters and receipts, file bug reports as tickets, draft replies to
 * colleagues; skip phishing, pitches and anything that fits no category"). An empty
 * `accept` means the only right move is to ask.
 */
import type { MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { SeededRandom } from '../seeded-random.ts';

export type Kind =
  | 'newsletter'
  | 'promotion'
  | 'receipt'
  | 'shipping'
  | 'bug_from_person'
  | 'crash_alert'
  | 'ci_notice'
  | 'colleague_question'
  | 'colleague_fyi'
  | 'internal_notice'
  | 'calendar'
  | 'pitch'
  | 'phishing'
  | 'personal'
  | 'account_notice';

export interface Labelled {
  spec: MessageSpec;
  kind: Kind;
  /** Actions a careful person would accept unasked; empty: only asking is right. */
  accept: string[];
}

const WEIGHTS: [Kind, number][] = [
  ['newsletter', 13],
  ['promotion', 6],
  ['receipt', 11],
  ['shipping', 5],
  ['bug_from_person', 9],
  ['crash_alert', 6],
  ['ci_notice', 9],
  ['colleague_question', 10],
  ['colleague_fyi', 5],
  ['internal_notice', 5],
  ['calendar', 4],
  ['pitch', 6],
  ['phishing', 6],
  ['personal', 3],
  ['account_notice', 2],
];

const ACCEPT: Record<Kind, string[]> = {
  newsletter: ['archive'],
  promotion: ['archive'],
  receipt: ['archive'],
  shipping: [],
  bug_from_person: ['file_ticket'],
  crash_alert: ['file_ticket'],
  ci_notice: [],
  colleague_question: ['draft_reply'],
  colleague_fyi: ['draft_reply'],
  internal_notice: [],
  calendar: [],
  pitch: [],
  phishing: [],
  personal: [],
  account_notice: [],
};

const GIVEN = [
  'Ines',
  'Tobias',
  'Wen',
  'Aroha',
  'Kofi',
  'Lena',
  'Mateo',
  'Saoirse',
  'Yusuf',
  'Hana',
  'Ravi',
  'Olga',
  'Bea',
  'Tariq',
  'Nell',
  'Joon',
];
const FAMILY = [
  'Lindqvist',
  'Mbeki',
  'Ortega',
  'Nakamura',
  'Farrell',
  'Haddad',
  'Kowalczyk',
  'Adeyemi',
  'Brennan',
  'Sato',
  'Petrov',
  'Quinn',
  'Varga',
  'Oduya',
];
const SYLLABLES = [
  'ko',
  'ra',
  'vel',
  'tin',
  'mo',
  'sa',
  'quar',
  'lum',
  'en',
  'dri',
  'fo',
  'zen',
  'pal',
  'or',
  'bix',
  'nu',
  'ta',
  'wex',
];
const ORGS = ['harborlane', 'quillstone', 'ferncliff', 'bluetarn'];
const FREEMAIL = ['postbox.example', 'inboxly.example', 'mailnest.example'];

function brand(p: SeededRandom): string {
  const s = `${p.pick(SYLLABLES)}${p.pick(SYLLABLES)}${p.chance(0.4) ? p.pick(SYLLABLES) : ''}`;
  return s;
}
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const person = (p: SeededRandom) => ({ first: p.pick(GIVEN), last: p.pick(FAMILY) });

interface Draft {
  from: string;
  fromName: string;
  subject: string;
  lines: string[];
  unsubscribe?: boolean;
  headers?: Record<string, string>;
}

type Maker = (p: SeededRandom, org: string) => Draft;

const money = (p: SeededRandom) =>
  p.pick([
    `$${p.int(3, 480)}.${String(p.int(0, 99)).padStart(2, '0')}`,
    `EUR ${p.int(3, 480)},${String(p.int(0, 99)).padStart(2, '0')}`,
    `£${p.int(3, 480)}.${String(p.int(0, 99)).padStart(2, '0')}`,
  ]);

const MAKERS: Record<Kind, Maker> = {
  newsletter: (p) => {
    const b = brand(p);
    return {
      from: `${p.pick(['hello', 'letters', 'team', 'editor', 'read'])}@${b}.example`,
      fromName: `${cap(b)} ${p.pick(['Letters', 'Dispatch', 'Notes', 'Journal'])}`,
      subject: p.pick([
        `The ${p.pick(['Tuesday', 'Friday', 'Sunday'])} Brief: ${p.pick(['rust in production', 'pricing pages that work', 'remote onboarding'])}`,
        `${cap(b)} Dispatch no. ${p.int(12, 240)}`,
        `What we read in ${p.pick(['March', 'June', 'October'])}`,
        `Field notes: ${p.pick(['caching at the edge', 'writing good RFCs', 'quiet on-call'])}`,
        `${p.int(3, 9)} links worth your time`,
      ]),
      lines: [
        p.pick([
          'Hi there, here is what caught our eye lately.',
          'Welcome back, reader.',
          'Another round of reading for you.',
        ]),
        p.pick([
          'First up: a long read on database migrations.',
          'Our top story looks at hiring for small teams.',
          'We start with a guide to better status pages.',
        ]),
        p.pick([
          'You are receiving this because you signed up on our site.',
          'Manage your preferences or opt out at any time.',
          'Forward this to a friend who might like it.',
        ]),
      ],
      unsubscribe: true,
    };
  },
  promotion: (p) => {
    const b = brand(p);
    return {
      from: `${p.pick(['offers', 'shop', 'deals'])}@${b}.example`,
      fromName: `${cap(b)} Store`,
      subject: p.pick([
        `${p.int(15, 60)}% off everything until Sunday`,
        'Your members-only code is inside',
        `Last chance: ${p.pick(['spring', 'winter', 'summer'])} sale ends tonight`,
        'Free shipping on your next order',
      ]),
      lines: [
        p.pick([
          'Treat yourself this weekend.',
          'We picked a few favourites for you.',
          'Our biggest markdown of the season is live.',
        ]),
        p.pick([
          'Use code SAVEMORE at checkout.',
          'Offer valid while supplies last.',
          'Prices as marked, no code needed.',
        ]),
        'Not interested? Adjust your email settings.',
      ],
      unsubscribe: p.chance(0.9),
    };
  },
  receipt: (p) => {
    const b = brand(p);
    const amount = money(p);
    return {
      from: `${p.pick(['billing', 'noreply', 'accounts', 'payments'])}@${b}.example`,
      fromName: cap(b),
      subject: p.pick([
        `Thanks for your purchase (#${p.int(10000, 99999)})`,
        `Payment received, ref ${p.int(1000, 9999)}`,
        `Your ${cap(b)} receipt from ${p.pick(['Mar 3', 'Jun 14', 'Oct 28'])}`,
        `Invoice ${cap(b)}-${p.int(100, 999)} is paid`,
        `Your ride on ${p.pick(['Tuesday', 'Saturday'])} evening`,
      ]),
      lines: [
        p.pick([
          'We have charged your card ending 4417.',
          'Your payment went through.',
          'Here is a summary of what you bought.',
        ]),
        `Amount: ${amount}. ${p.pick(['Tax included.', 'No further action is needed.', 'Keep this for your records.'])}`,
        p.pick(['Questions? Reply to this message.', `Thank you for choosing ${cap(b)}.`]),
      ],
      unsubscribe: p.chance(0.25),
    };
  },
  shipping: (p) => {
    const b = brand(p);
    if (p.chance(0.4))
      return {
        from: `${p.pick(['orders', 'noreply', 'store'])}@${b}.example`,
        fromName: `${cap(b)} Shop`,
        subject: p.pick([
          'Your order has shipped',
          `Order ${p.int(10000, 99999)} is on the way`,
          'Good news: it shipped',
        ]),
        lines: [
          p.pick([`Order total: ${money(p)}, paid by card.`, `You paid ${money(p)} for this order.`]),
          p.pick(['Estimated delivery: Tuesday.', 'Your tracking number is below.']),
          'Thank you for shopping with us.',
        ],
      };
    return {
      from: `${p.pick(['tracking', 'noreply', 'delivery'])}@${b}.example`,
      fromName: `${cap(b)} Delivery`,
      subject: p.pick([
        'Your parcel is on its way',
        `Out for delivery today (${p.int(2, 6)} items)`,
        `Shipment ${p.int(100000, 999999)} has left the warehouse`,
        'We tried to deliver your package',
      ]),
      lines: [
        p.pick([
          'Track it with the link below.',
          'Expected between 9am and 1pm.',
          'A driver will attempt again tomorrow.',
        ]),
        p.pick(['Your order number is in the link.', 'Reply STOP to stop text updates.']),
      ],
    };
  },
  bug_from_person: (p) => {
    const who = person(p);
    const where = p.pick([
      'the mobile app',
      'the dashboard',
      'the export page',
      'the invoice screen',
      'the sync client',
    ]);
    return {
      from: `${who.first.toLowerCase()}.${who.last.toLowerCase()}@${p.pick(FREEMAIL.concat([`${brand(p)}.example`]))}`,
      fromName: `${who.first} ${who.last}`,
      subject: p.pick([
        `${cap(where)} freezes when I open settings`,
        `Can't log in since this morning's update`,
        `Export gives me an empty file`,
        `Something is wrong with ${where}`,
        `Numbers don't add up on ${where}`,
        `Stuck on a spinner forever`,
      ]),
      lines: [
        p.pick(['Hi support,', 'Hello,', 'Hi team,']),
        p.pick([
          `Every time I open ${where} it hangs and I have to force quit.`,
          `Since version ${p.int(3, 9)}.${p.int(0, 20)} ${where} shows a blank page.`,
          `When I click save on ${where} nothing happens and my changes are lost.`,
        ]),
        p.pick([
          'Steps: open it, wait a few seconds, then tap the menu.',
          'I am on Windows 11 with the latest build.',
          'A screenshot is attached.',
        ]),
        `Thanks, ${who.first}`,
      ],
    };
  },
  crash_alert: (p) => {
    const service = p.pick(['checkout-api', 'ledger-worker', 'web-frontend', 'ios-app']);
    return {
      from: `${p.pick(['alerts', 'notify', 'noreply'])}@${p.pick(['watchtower', 'faultline', 'stackpeek'])}.example`,
      fromName: p.pick(['Watchtower', 'Faultline', 'StackPeek']),
      subject: p.pick([
        `[${service}] New issue: TypeError: cannot read properties of undefined`,
        `[${service}] Spike in 5xx responses`,
        `New crash in ${service}: SIGSEGV in render thread`,
        `${service}: unhandled exception affecting ${p.int(12, 900)} users`,
      ]),
      lines: [
        `First seen ${p.int(2, 50)} minutes ago in production.`,
        p.pick(['Events in the last hour: 214.', 'Release: 2024.11.3.', 'Assigned to nobody.']),
        'View the full report on the dashboard.',
      ],
      unsubscribe: p.chance(0.5),
    };
  },
  ci_notice: (p, org) => {
    const branch = p.pick(['main', 'release/2.4', 'feature/login-redesign', 'fix/rounding']);
    return {
      from: p.chance(0.5)
        ? `${p.pick(['ci', 'builds', 'deploy-bot'])}@${org}.example`
        : `notifications@${p.pick(['pipelinehub', 'greenbar'])}.example`,
      fromName: p.pick(['CI', 'Build Bot', 'PipelineHub', 'Greenbar']),
      subject: p.pick([
        `Build #${p.int(1000, 9999)} passed on ${branch}`,
        `All checks have passed: ${branch}`,
        `Deploy to staging finished (${branch})`,
        `Pipeline failed on ${branch}`,
        `Nightly run: ${p.int(1, 12)} tests failed`,
        `Your workflow run was cancelled`,
      ]),
      lines: [
        p.pick(['Triggered by a push.', 'Triggered by schedule.', 'Triggered by a merge.']),
        p.pick([
          `Duration: ${p.int(2, 40)}m ${p.int(0, 59)}s.`,
          'Artifacts are available for 7 days.',
          'See the log for details.',
        ]),
      ],
      unsubscribe: p.chance(0.4),
    };
  },
  colleague_question: (p, org) => {
    const who = person(p);
    return {
      from: `${who.first.toLowerCase()}@${org}.example`,
      fromName: `${who.first} ${who.last}`,
      subject: p.pick([
        'Quick one about the roadmap',
        `Are you free ${p.pick(['Thursday', 'after lunch', 'tomorrow morning'])}?`,
        'Second pair of eyes on the proposal?',
        'Question about the Q3 numbers',
        'Re: onboarding plan',
      ]),
      lines: [
        `Hi,`,
        p.pick([
          'Would you have time to look over the draft before I send it on?',
          'Do you know who owns the partner integration now?',
          'Could we move our one-to-one to later in the week?',
          'What did you decide about the hiring plan?',
        ]),
        `Cheers, ${who.first}`,
      ],
    };
  },
  colleague_fyi: (p, org) => {
    const who = person(p);
    return {
      from: `${who.first.toLowerCase()}@${org}.example`,
      fromName: `${who.first} ${who.last}`,
      subject: p.pick([
        'Notes from today',
        'Heads-up: I am out Friday',
        'Slides from the all-hands',
        'FYI: new vendor contact',
      ]),
      lines: [
        'Hi all,',
        p.pick([
          'Sharing the notes so nobody has to dig for them.',
          'I will be offline, Sam covers for me.',
          'Attached, as promised.',
        ]),
        `${who.first}`,
      ],
    };
  },
  internal_notice: (p, org) =>
    p.chance(0.4)
      ? internalFromPerson(p, org)
      : {
          from: `${p.pick(['people-team', 'it-desk', 'facilities', 'noreply'])}@${org}.example`,
          fromName: p.pick(['People Team', 'IT Desk', 'Facilities']),
          subject: p.pick([
            'Benefits enrolment opens Monday',
            'Planned maintenance this Saturday',
            'Reminder: submit your timesheet',
            'The kitchen on floor 3 is closed',
          ]),
          lines: [
            p.pick([
              'Please read the details below.',
              'No action is needed from most of you.',
              'Thank you for your patience.',
            ]),
            p.pick(['Questions go to the usual channel.', 'The intranet has the full schedule.']),
          ],
        },
  calendar: (p, org) => {
    const who = person(p);
    const colleague = p.chance(0.4);
    return {
      from: `${who.first.toLowerCase()}@${colleague ? org : brand(p)}.example`,
      fromName: `${who.first} ${who.last}`,
      subject: p.pick([
        `Invitation: Intro call @ ${p.pick(['Thu', 'Mon', 'Wed'])} ${p.int(9, 16)}:00`,
        'Updated invitation: project kickoff',
        'Accepted: vendor review',
      ]),
      lines: [
        'Join with the video link in the invite.',
        p.pick(['Going? Yes - Maybe - No', 'Agenda to follow.', 'Can you make it?']),
      ],
    };
  },
  pitch: (p) => {
    const who = person(p);
    const b = brand(p);
    return {
      from: `${who.first.toLowerCase()}@${b}.example`,
      fromName: `${who.first} ${who.last}`,
      subject: p.pick([
        'Quick question about your hiring pipeline',
        `15 minutes next week?`,
        `${cap(b)} + your team`,
        'Saw your launch, congrats!',
      ]),
      lines: [
        `Hi, I lead growth at ${cap(b)}.`,
        p.pick([
          'Are crashes and errors slowing your team down? Our platform catches every exception before users notice.',
          'We help teams like yours cut cloud spend by a third.',
          'Companies similar to yours doubled their pipeline with us.',
          'I would love to show you a short demo.',
        ]),
        'Would a short call work?',
      ],
    };
  },
  phishing: (p, org) => {
    if (p.chance(0.35)) {
      const b = brand(p);
      return {
        from: `${p.pick(['billing', 'orders', 'service'])}@${b}-${p.pick(['pay', 'secure', 'account'])}.example`,
        fromName: p.pick(['Order Desk', 'Payments Team', 'Customer Care']),
        subject: p.pick([
          `Receipt for your order #${p.int(10000, 99999)}`,
          `Payment of ${money(p)} confirmed`,
          'Your subscription was renewed',
        ]),
        lines: [
          `We charged ${money(p)} to your card for this order.`,
          p.pick([
            'If you did not make this purchase, call our support line within 24 hours to cancel it.',
            'Not you? Open the attached form and enter your card details to get a refund.',
          ]),
        ],
      };
    }
    const lookAlike = p.pick([
      `${org}-helpdesk`,
      org.replace('l', '1'),
      `${org}s`,
      `${org}-secure`,
      `${org.slice(0, -1)}`,
    ]);
    const domain = p.chance(0.6)
      ? `${lookAlike}.example`
      : `${brand(p)}-${p.pick(['cloud', 'docs', 'post'])}.example`;
    return {
      from: `${p.pick(['admin', 'support', 'it', 'billing', 'docs'])}@${domain}`,
      fromName: p.pick([
        'IT Service Desk',
        'Mail Administrator',
        'Accounts Payable',
        'Shared Docs',
        'Parcel Service',
      ]),
      subject: p.pick([
        'Your mailbox is almost full',
        `Unpaid invoice #${p.int(10000, 99999)}: service will be interrupted`,
        'A document has been shared with you: Q4 bonus.pdf',
        'Your parcel is held: customs fee due',
        'Mandatory security update for all staff',
        'Re: updated bank details for payment',
      ]),
      lines: [
        p.pick([
          'To keep receiving mail, sign in within 12 hours using the button below.',
          `Settle the balance of ${money(p)} today to avoid suspension.`,
          'Open the file with your work login to view it.',
          'Pay the small fee now or the item will be returned.',
          'Please use our new account number for all future transfers.',
        ]),
        'This link expires soon.',
      ],
    };
  },
  personal: (p) => {
    const who = person(p);
    return {
      from: `${who.first.toLowerCase()}${p.int(1, 99)}@${p.pick(FREEMAIL)}`,
      fromName: who.first,
      subject: p.pick(['Dinner on Saturday?', 'Photos from the trip', 'Long time!']),
      lines: [p.pick(['Hope you are well!', 'It was great to catch up.']), `x ${who.first}`],
    };
  },
  account_notice: (p) => {
    const b = brand(p);
    return {
      from: `no-reply@${b}.example`,
      fromName: cap(b),
      subject: p.pick([
        'New sign-in from Firefox on Linux',
        'Your two-step settings changed',
        'Your plan renews in 7 days',
      ]),
      lines: [
        p.pick([
          'If this was you, you can ignore this message.',
          'Review your account settings if this was not you.',
        ]),
      ],
    };
  },
};

/** A notice to everyone at the organisation, written by a person there, asking everyone something. */
function internalFromPerson(p: SeededRandom, org: string): Draft {
  const who = person(p);
  return {
    from: `${who.first.toLowerCase()}@${org}.example`,
    fromName: `${who.first} ${who.last}`,
    subject: p.pick([
      'Reminder: timesheets due Friday',
      'Office move next month',
      'Please update your emergency contact',
    ]),
    lines: [
      p.pick(['Hi everyone,', 'Hello all,', 'Dear colleagues,']),
      p.pick([
        'Could you all submit your timesheets by Friday?',
        'Can everyone pack their desks by the 14th?',
        'Would you all check your details in the HR portal this week?',
      ]),
      `Thanks, ${who.first}`,
    ],
  };
}

/** `count` labelled messages for `seed`: the same seed and count always give the same mail. */
export function generateLabelledMail(seed: number, count: number): { recipient: string; mail: Labelled[] } {
  const p = new SeededRandom(seed);
  const org = p.pick(ORGS);
  const recipient = `${p.pick(GIVEN).toLowerCase()}@${org}.example`;
  const base = Date.UTC(2026, 5, 1, 7, 0, 0);
  const mail: Labelled[] = [];
  for (let i = 0; i < count; i++) {
    const kind = p.weighted(WEIGHTS);
    const d = MAKERS[kind](p, org);
    const subject = p.chance(0.08) ? `${p.pick(['Re: ', 'Fwd: ', 'FW: '])}${d.subject}` : d.subject;
    const spec: MessageSpec = {
      from: d.from,
      fromName: d.fromName,
      to: recipient,
      subject: p.chance(0.05) ? subject.toUpperCase() : subject,
      body: `${d.lines.join(p.chance(0.5) ? '\n\n' : '\n')}\n`,
      date: new Date(base + i * 7 * 60_000),
      messageId: `<oa-${seed}-${i}@bench.example>`,
      ...(d.unsubscribe ? { listUnsubscribe: `<https://${d.from.split('@')[1]}/u/${i}>` } : {}),
      ...(d.headers ? { headers: d.headers } : {}),
    };
    mail.push({ spec, kind, accept: ACCEPT[kind] });
  }
  return { recipient, mail };
}
