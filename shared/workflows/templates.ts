/**
 * Built-in workflow templates: YAML files shipped next to this module.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { NotFoundError } from '../errors/index.ts';
import { credentialsNeeded } from './credentials-needed.ts';
import { parseWorkflow } from './load.ts';

export { credentialsNeeded } from './credentials-needed.ts';

// Beside this module in the sources; from the CLI bundle in dist/, in the sources it was built from.
const TEMPLATES_DIR = [
  new URL('./templates/', import.meta.url),
  new URL('../shared/workflows/templates/', import.meta.url),
].find((dir) => existsSync(dir))!;

/** A template as listed to people choosing one. */
export interface TemplateInfo {
  id: string;
  name: string;
  description: string;
  /** The credentials it needs (`handoff credentials set NAME`): its source's, then its integrations'. */
  credentials: string[];
  /** Absolute path of the template file. */
  file: string;
}

/** Lists the templates, sorted by id. Description: a `# description:` comment, else the first line of instructions. */
export async function listTemplates(): Promise<TemplateInfo[]> {
  const names = (await readdir(TEMPLATES_DIR)).filter((n) => n.endsWith('.yaml')).sort();
  return Promise.all(
    names.map(async (n) => {
      const url = new URL(n, TEMPLATES_DIR);
      const text = await readFile(url, 'utf8');
      const workflow = parseWorkflow(text, n);
      const comment = /^#\s*description:\s*(.+)$/m.exec(text)?.[1]?.trim();
      const description = comment ?? workflow.instructions.split('\n')[0] ?? '';
      return {
        id: n.slice(0, -'.yaml'.length),
        name: workflow.name,
        description,
        credentials: credentialsNeeded(workflow),
        file: fileURLToPath(url),
      };
    }),
  );
}

/** The YAML text of a template; throws NotFoundError for an unknown id. */
export async function readTemplate(id: string): Promise<string> {
  if (/^[a-z0-9][a-z0-9-]*$/.test(id)) {
    try {
      return await readFile(new URL(`${id}.yaml`, TEMPLATES_DIR), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const known = (await listTemplates()).map((t) => t.id).join(', ');
  throw new NotFoundError(`no template "${id}" (available: ${known})`);
}
