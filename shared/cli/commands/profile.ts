import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.ts';
import {
  parseQuietHours,
  profileView,
  readProfile,
  saveProfile,
  type Profile,
  type ProfileInput,
} from '../../profile/profile.ts';
import { NOTIFY_CHANNELS } from '../../settings/settings.ts';
import { cliContext } from '../context.ts';
import { printJson } from '../output.ts';

function printProfile(p: Profile): void {
  const quiet = p.quiet_hours ? `${p.quiet_hours.start}-${p.quiet_hours.end}` : 'off';
  console.log(`name         ${p.name ?? '-'}`);
  console.log(`time zone    ${p.time_zone}`);
  console.log(`notify       ${p.notify_channel ?? 'default (Settings, else NOTIFY_CHANNEL)'}`);
  console.log(`quiet hours  ${quiet}`);
}

interface SetOptions {
  name?: string;
  timeZone?: string;
  notify?: string;
  quietHours?: string;
  json?: boolean;
}

/** `handoff profile [--json]` and `handoff profile set ...`. */
export function registerProfileCommands(program: Command): void {
  const cmd = program
    .command('profile')
    .description(
      'show your profile: name, time zone (schedules run in it), how you are notified, quiet hours',
    )
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const profile = await readProfile(engine.store);
      if (options.json) return printJson(profileView(profile));
      printProfile(profile);
    });

  cmd
    .command('set')
    .description('change your profile; only the options given change')
    .option('--name <NAME>', 'your name ("" clears it)')
    .option('--time-zone <ZONE>', 'an IANA time zone, e.g. Europe/Paris; schedules are read in it')
    .option('--notify <CHANNEL>', `${NOTIFY_CHANNELS.join(', ')}, or default`)
    .option(
      '--quiet-hours <HH:MM-HH:MM>',
      'questions raised then are notified when they end; "off" clears them',
    )
    .option('--json', 'print JSON')
    .action(async (options: SetOptions) => {
      const change: ProfileInput = {};
      if (options.name !== undefined) change.name = options.name.trim() === '' ? null : options.name.trim();
      if (options.timeZone !== undefined) change.time_zone = options.timeZone;
      if (options.notify !== undefined) {
        const channel =
          options.notify === 'default' ? null : NOTIFY_CHANNELS.find((c) => c === options.notify);
        if (channel === undefined)
          throw new InvalidInputError(
            `--notify must be one of ${NOTIFY_CHANNELS.join(', ')} or default, got "${options.notify}"`,
          );
        change.notify_channel = channel;
      }
      if (options.quietHours !== undefined) change.quiet_hours = parseQuietHours(options.quietHours);
      if (Object.keys(change).length === 0)
        throw new InvalidInputError('nothing to change: give --name, --time-zone, --notify or --quiet-hours');
      const { engine } = await cliContext();
      const saved = await saveProfile(engine.store, change);
      if (options.json) return printJson(profileView(saved));
      printProfile(saved);
    });
}
