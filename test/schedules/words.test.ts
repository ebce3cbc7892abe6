import { expect, it } from '@jest/globals';
import { scheduleInWords } from '../../shared/schedules/words.ts';

it.each([
  ['cron(0 8 ? * MON-FRI *)', 'weekdays at 08:00 (Europe/Paris)'],
  ['cron(30 7 * * ? *)', 'every day at 07:30 (Europe/Paris)'],
  ['cron(0 9 ? * MON,THU *)', 'every Monday, Thursday at 09:00 (Europe/Paris)'],
  ['cron(15 * * * ? *)', 'every hour at :15 (Europe/Paris)'],
  ['cron(0 8,17 ? * SAT,SUN *)', 'weekends at 08:00 and 17:00 (Europe/Paris)'],
  ['cron(0 6 1 * ? *)', 'on day 1 of every month, at 06:00 (Europe/Paris)'],
  ['rate(1 hour)', 'every hour'],
  ['rate(15 minutes)', 'every 15 minutes'],
  ['cron(0/5 8-17 ? * MON-FRI *)', 'on the schedule cron(0/5 8-17 ? * MON-FRI *)'],
])('reads %s as "%s"', (schedule, words) => {
  expect(scheduleInWords(schedule, 'Europe/Paris')).toBe(words);
});
