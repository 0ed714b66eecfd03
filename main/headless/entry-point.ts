import path from 'node:path';

/**
 * How to start this headless host from outside (a service unit, a container): plain `node`
 * on a built file when one exists, else `node --import tsx` on the TypeScript entry. This
 * is the one place that knows those paths; bundling the host later changes only
 * `BUILT_ENTRIES`.
 */
export const BUILT_ENTRIES = ['dist/headless/cli.mjs', 'dist/headless/cli.js'] as const;
export const SOURCE_ENTRY = 'main/headless/cli.ts';

export interface EntryCommand {
  /** The node binary (absolute). */
  command: string;
  args: string[];
  workingDirectory: string;
}

export function headlessEntry(repoRoot: string, nodePath: string, exists: (file: string) => boolean): EntryCommand {
  for (const built of BUILT_ENTRIES) {
    const file = path.join(repoRoot, built);
    if (exists(file)) return { command: nodePath, args: [file], workingDirectory: repoRoot };
  }
  return { command: nodePath, args: ['--import', 'tsx', path.join(repoRoot, SOURCE_ENTRY)], workingDirectory: repoRoot };
}
