/**
 * Mail that fits each mail template, for running the templates end to end on Dovecot: for
 * each, what the offline model is sure of and what it must ask about.
 */
import type { MessageSpec } from '../../shared/sources/maildir/generate.ts';

const ME = 'alex.morgan@northwind.example';
const at = (iso: string): Date => new Date(iso);

/** Competitor alerts and newsletters, as a mail rule files them into a `Competitors` folder. */
export const COMPETITOR_MAIL: readonly MessageSpec[] = [
  {
    from: 'news@rivalry-weekly.example',
    fromName: 'Rivalry Weekly',
    to: ME,
    subject: 'Rivalry Weekly #57: this week in project-tracking tools',
    date: at('2025-03-10T06:00:00Z'),
    messageId: '<rw-57@rivalry-weekly.example>',
    listUnsubscribe: '<https://rivalry-weekly.example/unsubscribe?u=41>',
    body: `This week in project tracking

1. Trackly ships nested projects to every plan.
2. Planwise hires a new VP of Sales from a large CRM vendor.
3. A round-up of keyboard shortcuts across five tools.

Unsubscribe: https://rivalry-weekly.example/unsubscribe?u=41`,
  },
  {
    from: 'googlealerts-noreply@google.example',
    fromName: 'Google Alerts',
    to: ME,
    subject: 'Google Alert - Trackly pricing',
    date: at('2025-03-10T07:10:00Z'),
    messageId: '<alert-trackly-pricing@google.example>',
    body: `Trackly cuts its Team plan to $6 per seat and adds unlimited guests

Trackly announced today that its Team plan drops from $9 to $6 per seat per month,
effective April 1, and now includes unlimited guests.

You are receiving this alert for "Trackly pricing".`,
  },
];

/** Receipts and invoices, filed by a mail rule into a `Receipts` folder. */
export const RECEIPT_MAIL: readonly MessageSpec[] = [
  {
    from: 'billing@cloudlog.example',
    fromName: 'CloudLog Billing',
    to: ME,
    subject: 'Your CloudLog receipt: payment received for invoice INV-2025-0311',
    date: at('2025-03-11T09:00:00Z'),
    messageId: '<inv-2025-0311@cloudlog.example>',
    body: `Hi Alex,

Thank you for your payment. This is your receipt.

Invoice INV-2025-0311, March 2025, Team plan
Total paid: USD 240.00, charged to Visa ending 4417 on 11 March 2025.

CloudLog Billing`,
  },
  {
    from: 'accounts@printhaus.example',
    fromName: 'PrintHaus Accounts',
    to: ME,
    subject: 'Invoice 7781 overdue',
    date: at('2025-03-12T09:00:00Z'),
    messageId: '<inv-7781@printhaus.example>',
    body: `Dear customer,

Invoice 7781 for EUR 312.50 is overdue. Please pay now to avoid a late fee.

PrintHaus Accounts`,
  },
];

/** Customer mail arriving at support@. */
export const SUPPORT_MAIL: readonly MessageSpec[] = [
  {
    from: 'dana.whitfield@brightpath.example',
    fromName: 'Dana Whitfield',
    to: 'support@northwind.example',
    subject: 'CSV export fails with 500 error since yesterday',
    date: at('2025-03-10T09:15:00Z'),
    messageId: '<csv-500@brightpath.example>',
    body: `Hello,

Since yesterday the CSV export fails with a 500 error. Steps: open Reports, pick March,
press Export. Version 4.2.1 on Chrome 122. The error text is "Internal Server Error".

Thanks, Dana`,
  },
  {
    from: 'no-reply@status.bigcorp.example',
    fromName: 'BigCorp IT',
    to: 'support@northwind.example',
    subject: 'Ticket 4471: account access',
    date: at('2025-03-10T10:00:00Z'),
    messageId: '<t4471@status.bigcorp.example>',
    body: `Please give our new admin access to the BigCorp workspace and refund last month.`,
  },
];
