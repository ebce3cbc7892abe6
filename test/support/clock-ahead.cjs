/**
 * Moves this process's clock ahead by HANDOFF_TEST_CLOCK_DAYS days: `Date.now()`, `new Date()`
 * and `Date()` read the real clock plus the offset, and file times read by `stat` (and set by
 * `utimes`) move with it, as they would if the machine's clock were moved: a file written now
 * is seen as written now. Timers and `performance` are untouched. Loaded with `--require`
 * (NODE_OPTIONS, so every Node child of the suite gets it) and by jest's setupFiles for each
 * test file's own realm. `npm run test:clock-ahead` sets both, so a test that only passes
 * before some date fails today, not on that date.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload, loaded by node --require */

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

const TIMES = ['atime', 'mtime', 'ctime', 'birthtime'];

/** The stats with each time moved by `offset` ms (bigint stats too). */
function shiftStats(stats, offset) {
  if (!stats || typeof stats !== 'object') return stats;
  const bigint = typeof stats.mtimeMs === 'bigint';
  for (const t of TIMES) {
    if (bigint) {
      stats[`${t}Ms`] += BigInt(offset);
      stats[`${t}Ns`] += BigInt(offset) * 1_000_000n;
    } else stats[`${t}Ms`] += offset;
    stats[t] = new Date(Number(stats[`${t}Ms`]));
  }
  return stats;
}

/** A time given to utimes (seconds, a numeric string or a Date) as the real clock has it. */
function unshift(time, offset) {
  // A Date of any realm (a test file's own is not this one's).
  if (Object.prototype.toString.call(time) === '[object Date]') return new Date(time.getTime() - offset);
  if (typeof time === 'number') return time - offset / 1000;
  if (typeof time === 'string' && time !== '' && !Number.isNaN(Number(time)))
    return Number(time) - offset / 1000;
  return time;
}

/** `stat` reads, and `utimes` writes, file times on the moved clock (once per process: fs is shared). */
function shiftFileTimes(days) {
  const fs = require('node:fs');
  if (!days || fs.handoffShiftedBy !== undefined) return;
  Object.defineProperty(fs, 'handoffShiftedBy', { value: days });
  const offset = days * 86_400_000;
  for (const name of ['statSync', 'lstatSync', 'fstatSync']) {
    const real = fs[name];
    fs[name] = (...args) => shiftStats(real(...args), offset);
  }
  for (const name of ['stat', 'lstat', 'fstat']) {
    const real = fs[name];
    fs[name] = (...args) => {
      const done = args.pop();
      return real(...args, (error, stats) => done(error, shiftStats(stats, offset)));
    };
  }
  for (const name of ['stat', 'lstat']) {
    const real = fs.promises[name];
    fs.promises[name] = async (...args) => shiftStats(await real(...args), offset);
  }
  for (const name of ['utimesSync', 'lutimesSync', 'futimesSync']) {
    const real = fs[name];
    fs[name] = (target, atime, mtime) => real(target, unshift(atime, offset), unshift(mtime, offset));
  }
  for (const name of ['utimes', 'lutimes', 'futimes']) {
    const real = fs[name];
    fs[name] = (target, atime, mtime, done) =>
      real(target, unshift(atime, offset), unshift(mtime, offset), done);
  }
  for (const name of ['utimes', 'lutimes']) {
    const real = fs.promises[name];
    fs.promises[name] = (target, atime, mtime) =>
      real(target, unshift(atime, offset), unshift(mtime, offset));
  }
  // FileHandle: its class is reached through a handle of a file that always exists.
  const handle = fs.promises.open(__filename, 'r');
  void handle.then((h) => {
    const proto = Object.getPrototypeOf(h);
    const stat = proto.stat;
    const utimes = proto.utimes;
    proto.stat = async function (...args) {
      return shiftStats(await stat.apply(this, args), offset);
    };
    proto.utimes = function (atime, mtime) {
      return utimes.call(this, unshift(atime, offset), unshift(mtime, offset));
    };
    return h.close();
  });
  require('node:module').syncBuiltinESMExports();
}

const days = Number(process.env.HANDOFF_TEST_CLOCK_DAYS ?? 0);
shiftClock(globalThis, days);
shiftFileTimes(days);
module.exports = { shiftClock };
