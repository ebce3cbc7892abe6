/** Notes that mark an answer as a one-off: "just this once", "only this time", "an exception". */
const EXCEPTION =
  /\b(just|only) (this|the) (one|once|time)\b|\bthis (one )?time only\b|\b(just|only) once\b|\bthis one time\b|\bone[- ]off\b|\bfor now\b|(?<!\bno )\bexception\b/;

/**
 * Whether a person's note marks the answer as an exception. Such an answer teaches
 * nothing and cancels nothing: no rule is written and no rule is superseded.
 */
export function marksException(note: string | null | undefined): boolean {
  return EXCEPTION.test((note ?? '').toLowerCase());
}

/**
 * Whether an answer was given just this once: the control (`--once`, `"once": true`, the
 * checkbox) or a note that says so. It teaches nothing and cancels nothing.
 */
export function answeredOnce(
  answer: { once?: boolean | undefined; note: string | null } | null | undefined,
): boolean {
  return answer?.once === true || marksException(answer?.note);
}
