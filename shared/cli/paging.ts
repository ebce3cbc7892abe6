/**
 * `--limit N --cursor C` for the CLI's lists (`runs`, `audit`, `pending`, `rules`, `artifacts`, `chats`): the page the API
 * would return. `--json` stays an array; when more follow, the next page's command is one line
 * on stderr (docs/lists.md).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_PAGE, MAX_PAGE } from '../runs/list-pages.ts';

/** Adds `--limit` and `--cursor` to `command`. */
export function withPaging(command: Command): Command {
  return command
    .option(
      `--limit <N>`,
      `how many to show (default ${DEFAULT_PAGE}, at most ${MAX_PAGE})`,
      pageLimit,
      DEFAULT_PAGE,
    )
    .option('--cursor <CURSOR>', 'the next page, as the last one said');
}

function pageLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_PAGE)
    throw new InvalidArgumentError(`give a whole number from 1 to ${MAX_PAGE}`);
  return n;
}

/** Says where the next page starts (stderr, so `--json` stays one array on stdout). */
export function printNextPage(command: string, nextCursor: string | null): void {
  if (nextCursor !== null) process.stderr.write(`More: ${command} --cursor ${nextCursor}\n`);
}

/** The filters given, as flags again (for the next page's command). */
export function flags(options: Record<string, unknown>): string {
  return (
    Object.entries(options)
      .filter(([k, v]) => typeof v === 'string' && k !== 'cursor')
      .map(([k, v]) => ` --${k} ${/[\s"'$]/.test(String(v)) ? JSON.stringify(v) : String(v)}`)
      .join('') +
    ((options.limit as number | undefined) !== DEFAULT_PAGE ? ` --limit ${String(options.limit)}` : '')
  );
}
