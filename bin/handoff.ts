import { main } from '../shared/cli/program.ts';

process.exitCode = await main(process.argv);
