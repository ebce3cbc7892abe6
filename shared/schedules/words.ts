/**
 * A schedule expression as a person says it: `cron(0 8 ? * MON-FRI *)` → "weekdays at
 * 08:00", `rate(2 hours)` → "every 2 hours". An expression with no plain reading keeps
 * its text ("on the schedule cron(...)"), never a wrong sentence.
 */
const DAY_NAMES: Record<string, string> = {
  SUN: 'Sunday',
  MON: 'Monday',
  TUE: 'Tuesday',
  WED: 'Wednesday',
  THU: 'Thursday',
  FRI: 'Friday',
  SAT: 'Saturday',
};
const DAY_NUMBERS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The expression in words, with the time zone its times are read in when it has times. */
export function scheduleInWords(schedule: string, timeZone: string): string {
  const s = schedule.trim();
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(s);
  if (rate) {
    const n = Number(rate[1]);
    const unit = (rate[2] ?? '').replace(/s$/, '');
    return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
  }
  const cron = /^cron\((.*)\)$/.exec(s);
  const fields = cron?.[1]?.trim().split(/\s+/) ?? [];
  if (fields.length !== 6) return `on the schedule ${s}`;
  const [min = '', hour = '', dom = '', month = '', dow = '', year = ''] = fields;
  const any = (f: string) => f === '*' || f === '?';
  if (!any(month) || !any(year) || !/^\d{1,2}$/.test(min)) return `on the schedule ${s}`;
  const mm = min.padStart(2, '0');
  let when: string;
  if (any(hour)) when = `every hour at :${mm}`;
  else if (/^\d{1,2}(,\d{1,2})*$/.test(hour))
    when = `at ${hour
      .split(',')
      .map((h) => `${h.padStart(2, '0')}:${mm}`)
      .join(' and ')}`;
  else return `on the schedule ${s}`;
  const days = daysInWords(dom, dow);
  if (days === null) return `on the schedule ${s}`;
  if (days === 'every day' && any(hour)) return `${when} (${timeZone})`;
  return `${days} ${when} (${timeZone})`;
}

function daysInWords(dom: string, dow: string): string | null {
  const any = (f: string) => f === '*' || f === '?';
  if (!any(dom)) return /^\d{1,2}$/.test(dom) && any(dow) ? `on day ${dom} of every month,` : null;
  if (any(dow)) return 'every day';
  const upper = dow.toUpperCase();
  if (upper === 'MON-FRI' || upper === '2-6') return 'weekdays';
  if (upper === 'SAT,SUN' || upper === 'SUN,SAT' || upper === '1,7' || upper === '7,1') return 'weekends';
  const names = upper.split(',').map((d) => (/^\d$/.test(d) ? DAY_NUMBERS[Number(d) - 1] : d));
  if (names.some((d) => d === undefined || !(d in DAY_NAMES))) return null;
  return `every ${names.map((d) => DAY_NAMES[d!]).join(', ')}`;
}
