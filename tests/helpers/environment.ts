import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

// Tests that need something from the machine (a real CLI, keytar's native build, a Secret
// Service) skip, saying why, where it is missing; the reason goes into the suite's title,
// where `npm test` lists it. CI installs all of it, and `.ci/run` (RUNNER_TRAY_STRICT_SKIPS=1)
// fails when any of these skips there (scripts/test.mjs).

/** "title (skipped: reason)" when `reason` is set, else the title. */
export function suiteTitle(title: string, reason: string | null): string {
  return reason ? `${title} (skipped: ${reason})` : title;
}

/** Why `bin --version` cannot run here, or null when it answers. */
export function cliUnavailable(name: string, bin: string): string | null {
  if (!existsSync(bin)) return `the ${name} CLI is not installed at ${bin} (npm ci installs it)`;
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
  if (r.error) return `the ${name} CLI does not start (${r.error.message})`;
  if (r.status !== 0) return `the ${name} CLI does not start (\`--version\` exited ${r.status ?? r.signal}: ${firstLine(r.stderr)})`;
  return null;
}

/** Why keytar (an optional native module) cannot be loaded here, or null when it can. */
export function keytarUnavailable(): string | null {
  try {
    createRequire(import.meta.url)('keytar');
    return null;
  } catch (error) {
    return `keytar is not built (${firstLine(error instanceof Error ? error.message : String(error))}); it needs libsecret-1-dev and a C++ toolchain at npm ci`;
  }
}

/** The tools in `names` that are not on PATH. */
export function missingCommands(names: readonly string[]): string[] {
  return names.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 200);
}
