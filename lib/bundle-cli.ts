/**
 * `tsx lib/bundle-cli.ts <function> <outdir>`: one handler bundled as the stack ships it (see
 * bundle.ts), then its bindings checked against the needs of the code it reaches
 * (bindings-check.ts): a mismatch fails the bundle, and so the synth, with one line each.
 */
import { bindingProblems, isLambdaFunction, reachedNeeds } from './bindings-check.ts';
import { bundleEntry, handlerEntry, PROJECT_ROOT } from './bundle.ts';

const [name, outdir] = process.argv.slice(2);
if (!name || !outdir) {
  process.stderr.write('usage: tsx lib/bundle-cli.ts <function name> <output directory>\n');
  process.exit(2);
}
const metafile = await bundleEntry(handlerEntry(name), outdir);
if (isLambdaFunction(name)) {
  const problems = bindingProblems(name, reachedNeeds(metafile, PROJECT_ROOT));
  if (problems.length > 0) {
    process.stderr.write(problems.map((p) => `handoff: ${p}\n`).join(''));
    process.exit(1);
  }
}
