import type { Command } from 'commander';

// Placeholder until the local server lands (being written now).
export function registerServerCommands(_program: Command): void {}
