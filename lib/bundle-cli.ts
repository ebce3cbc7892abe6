/** `tsx lib/bundle-cli.ts <function> <outdir>`: one handler bundled as the stack ships it (see bundle.ts). */
import { bundleEntry, handlerEntry } from './bundle.ts';

const [name, outdir] = process.argv.slice(2);
if (!name || !outdir) {
  process.stderr.write('usage: tsx lib/bundle-cli.ts <function name> <output directory>\n');
  process.exit(2);
}
await bundleEntry(handlerEntry(name), outdir);
