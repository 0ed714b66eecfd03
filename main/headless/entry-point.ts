import path from 'node:path';

/**
 * How to start this headless host from outside (a service unit, a container): plain `node`
 * on the bundle `npm run build:headless` writes (scripts/build-headless.mjs). This is the
 * one place that knows that path.
 */
export const BUILT_ENTRY = 'dist/headless/cli.mjs';

export interface EntryCommand {
  /** The node binary (absolute). */
  command: string;
  args: string[];
  workingDirectory: string;
}

export function headlessEntry(repoRoot: string, nodePath: string): EntryCommand {
  return { command: nodePath, args: [path.join(repoRoot, BUILT_ENTRY)], workingDirectory: repoRoot };
}
