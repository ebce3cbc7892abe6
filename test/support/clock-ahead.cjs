/**
 * Moves this process's clock ahead by HANDOFF_TEST_CLOCK_DAYS days: `Date.now()`, `new Date()`
 * and `Date()` read the real clock plus the offset; timers, `performance` and file times are
 * untouched. Loaded with `--require` (NODE_OPTIONS, so every Node child of the suite gets it)
 * and by jest's setupFiles for each test file's own realm. `npm run test:clock-ahead` sets both,
 * so a test that only passes before some date fails today, not on that date.
 */
'use strict';

function shiftClock(global, days) {
  const RealDate = global.Date;
  if (!days || RealDate.handoffShiftedBy !== undefined) return;
  const offset = days * 86_400_000;
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
    /** A date made by the real constructor (Node's own, another module's) is still a Date. */
    static [Symbol.hasInstance](value) {
      return value instanceof RealDate;
    }
  }
  Object.defineProperty(ShiftedDate, 'handoffShiftedBy', { value: days });
  // `Date()` called as a function is the current time as a string.
  global.Date = new Proxy(ShiftedDate, {
    apply: () => new RealDate(RealDate.now() + offset).toString(),
  });
}

shiftClock(globalThis, Number(process.env.HANDOFF_TEST_CLOCK_DAYS ?? 0));
module.exports = { shiftClock };
