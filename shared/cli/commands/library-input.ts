import { open } from 'node:fs/promises';
import { parse } from 'yaml';
import { InvalidInputError, errorMessage } from '../../errors/index.ts';

/** Largest skill or agent file read. */
const MAX_BYTES = 64 * 1024;

/**
 * The text of `--file FILE`, else of stdin when it is piped; one line naming what is wrong
 * (missing file, too large, nothing given) otherwise.
 */
export async function readFileOrStdin(
  file: string | undefined,
  what: string,
  maxBytes = MAX_BYTES,
): Promise<{ text: string; from: string }> {
  const MAX = maxBytes;
  if (file !== undefined) {
    try {
      const handle = await open(file, 'r');
      try {
        if ((await handle.stat()).size > MAX)
          throw new InvalidInputError(`${file}: larger than ${MAX / 1024} KiB`);
        return { text: await handle.readFile('utf8'), from: file };
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof InvalidInputError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new InvalidInputError(
        `${file}: ${code === 'ENOENT' ? 'file not found' : `cannot read it (${code ?? errorMessage(error)})`}`,
      );
    }
  }
  if (process.stdin.isTTY)
    throw new InvalidInputError(`give the ${what} with --file FILE, or pipe it on stdin`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX) throw new InvalidInputError(`stdin: larger than ${MAX / 1024} KiB`);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '')
    throw new InvalidInputError(`no ${what} given: use --file FILE, or pipe it on stdin`);
  return { text, from: 'stdin' };
}

/** Parses YAML (JSON is YAML too); one line naming the file and the line on a syntax error. */
export function parseYamlText(text: string, from: string): unknown {
  try {
    return parse(text, { prettyErrors: false, maxAliasCount: 100 });
  } catch (error) {
    throw new InvalidInputError(`${from}: not valid YAML: ${errorMessage(error).split('\n')[0]}`);
  }
}

/** `--version N` as a positive integer, or one line saying it is not. */
export function versionOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value))
    throw new InvalidInputError(`--version must be a positive whole number, got "${value}"`);
  return Number(value);
}
