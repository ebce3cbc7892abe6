import { execFileSync } from 'node:child_process';

/** CLI tests run the bundle a fresh `npm ci` builds; rebuild it so they test the sources as they are. */
export default function setup(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
}
