/**
 * Facts about an item that do not depend on its wording alone: who sent it (a person or a
 * role address), whether it carries a money amount, whether it asks to be paid, and whether
 * it looks dangerous. The offline model is only sure of an item when such facts agree with
 * the words.
 */
import type { ItemView } from './classify.ts';

/** Role and machine mailboxes (RFC 2142 and the usual senders of automated mail). */
const ROLE =
  /^(no-?reply|do-?not-?reply|notifications?|notify|alerts?|builds?|ci|bots?|robot|deploy|automat\w*|mailer(-daemon)?|postmaster|daemon|system|monitor\w*|admin\w*|root|webmaster|support|help(desk)?|service|info|hello|hi|team|news\w*|marketing|sales|offers?|deals|shop|store|billing|accounts?|payments?|orders?|invoices?|receipts?|tracking|delivery|shipping|security|it|hr|people|facilities|office|jobs|careers|calendar|events?|updates?|digest|editor|letters|press|feedback|contact|community|members?|customers?)$/;

/**
 * True when the sender's mailbox looks like one person's (`dana`, `dana.whitfield`), not a
 * role or a machine (`noreply`, `alerts`, `people-team`, `build-bot`, `ci2`).
 */
export function fromAPerson(item: ItemView): boolean {
  const local = item.from.split('@')[0]?.toLowerCase() ?? '';
  if (!/^[a-z]+([._][a-z]+)?$/.test(local)) return false;
  return !local.split(/[._]/).some((part) => ROLE.test(part)) && !/\[bot\]|\bbot\b/i.test(item.name);
}

/** An amount of money: `$12.30`, `EUR 149.00`, `£8`, `12,50 €`, `30 USD`. */
const AMOUNT =
  /([$€£¥]\s?\d[\d,.]*|\b(usd|eur|gbp|chf|jpy|cad|aud)\s?\d[\d,.]*|\d[\d,.]*\s?([$€£¥]|usd|eur|gbp|chf|jpy|cad|aud)\b)/i;

/** True when the text names an amount of money. */
export function mentionsMoney(text: string): boolean {
  return AMOUNT.test(text);
}

/** A bill still to pay, or a payment that did not go through: not a receipt for something done. */
const UNSETTLED =
  /\b(unpaid|overdue|past due|outstanding balance|payment (failed|declined|required)|final (notice|reminder)|pay (now|today|immediately)|due (now|today|immediately))\b/;

/** True when the text asks to be paid (an unpaid bill, a failed payment). */
export function asksForPayment(text: string): boolean {
  return UNSETTLED.test(text);
}

/** Words that confirm a payment or an order went through. */
const CONFIRMED =
  /\b(paid|charged|receipt|received|refunded|confirm(ed|ation)|thanks?( you)? for (your|the) (order|purchase|payment))\b/;

/** True when the text confirms a payment or an order (a receipt does; a bill or a payment request does not). */
export function confirmsPayment(text: string): boolean {
  return CONFIRMED.test(text);
}

/** A question or a request addressed to the reader. */
/** True when the text asks the reader something. */
export function asksSomething(text: string): boolean {
  return /\?|\b(can|could|would|will) you\b/.test(text);
}

/** A receipt that asks you to act if it was not you: how a refund scam reads (a real receipt rarely asks). */
const IF_NOT_YOU =
  /\b(if (you did not|you didn't|this was not you|this wasn't you)|not you\?|to (cancel|dispute) (it|this|the)|get a refund|enter your (card|bank|account))\b/;

/** True when the text asks the reader to act if a payment was not theirs. */
export function asksToActIfNotYou(text: string): boolean {
  return IF_NOT_YOU.test(text);
}

/** A delivery on its way: what a shipping notice is about (a receipt may mention delivery in passing). */
const SHIPPED = /\b(shipped|on (its|the) way|out for delivery|parcel|package|tracking number)\b/;

/** True when the subject, or the text in so many words, says the mail is about a delivery on its way. */
export function aboutADelivery(subject: string, text: string): boolean {
  return SHIPPED.test(subject.toLowerCase()) || /\b(has|have|was|were) shipped|on its way\b/.test(text);
}

/** Mail addressed to everyone, not to you: a notice, whatever it asks. */
const TO_EVERYONE =
  /\b((hi|hello|dear|morning) (everyone|all|colleagues|team|folks)|you all|everyone can|can everyone|all staff)\b/;

/** True when the text is addressed to everyone. */
export function toEveryone(text: string): boolean {
  return TO_EVERYONE.test(text);
}

/** A calendar invitation or reply (Invitation:, Accepted:, ...): answered in the calendar, not by mail. */
const CALENDAR =
  /^(\s*(re|fwd?|fw):\s*)*(invitation|updated invitation|accepted|declined|tentative|canceled|cancelled)\b/i;

/** True when the subject marks a calendar invitation or reply. */
export function calendarMail(subject: string): boolean {
  return CALENDAR.test(subject);
}

/** How a sales pitch reads: someone offering their product. */
const SELLING =
  /\b(our (platform|tool|product|service|solution|team can)|(short|quick|\d+-minute) (demo|call)|i lead (growth|sales)|we help (teams|companies))\b/;

/** True when the text reads like someone selling something. */
export function sellsSomething(text: string): boolean {
  return SELLING.test(text);
}

const SUSPICIOUS =
  /\b(verify your (account|identity)|password (expires|reset)|account (suspended|locked)|wire transfer|gift cards?|confirm your (credentials|login)|unusual sign-in)\b/;

/** Why the item looks like phishing, or null: its words, or a look-alike of the recipient's domain. */
export function dangerOf(item: ItemView, text: string): string | null {
  if (item.hints.includes('look-alike-domain'))
    return `sender domain ${item.from.split('@')[1] ?? '?'} is a look-alike of your own domain`;
  const asks = SUSPICIOUS.exec(text);
  if (asks) return `words "${asks[0]}" ask for credentials or money`;
  return null;
}
