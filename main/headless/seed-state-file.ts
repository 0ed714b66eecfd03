import { access, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import { z } from 'zod';
import type { CommandOutput } from '../../shared/contract';
import type { Core } from '../core/bootstrap';
import { seedStateFilePath } from '../core/planes/rost/import';

type Out = { write(text: string): unknown };

/** Only what this check needs from a `rost runner serve` state file; the secret is never read into a value we keep. */
const IdentityOnlySchema = z.object({ runner_id: z.string().trim().min(1).max(200) }).passthrough();

export type StateFileCheck =
  { kind: 'missing' } | { kind: 'unreadable'; reason: string } | { kind: 'same' } | { kind: 'other'; runnerId: string; newer: boolean; hasSecret: boolean };

/** What the file holds compared with this host's identity (read-only). */
export async function inspectStateFile(file: string, identity: { runnerId: string; pairedAt: string }): Promise<StateFileCheck> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([readFile(file, 'utf8'), stat(file).then((s) => s.mtimeMs)]);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', reason: code ?? 'unreadable' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'it is not valid JSON' };
  }
  const parsed = IdentityOnlySchema.safeParse(json);
  if (!parsed.success) return { kind: 'unreadable', reason: 'it has no runner_id' };
  if (parsed.data.runner_id === identity.runnerId) return { kind: 'same' };
  const hasSecret = typeof (json as Record<string, unknown>).runner_secret === 'string';
  return { kind: 'other', runnerId: parsed.data.runner_id, newer: mtimeMs > Date.parse(identity.pairedAt), hasSecret };
}

/**
 * `--state-file <path>` / `RUNNER_STATE_FILE`, as a unit file of `rost runner serve` passes it.
 * Not paired yet: take the file over (identity and resume ids imported, the secret moved to
 * the secret store, the file rewritten without it), or pair if there is no file yet. Paired
 * already: if the file is newer than this identity and holds another runner (a seed CLI
 * paired again with it), say so instead of ignoring it; this host keeps its own identity.
 */
export async function takeOverStateFile(core: Core, file: string, out: Out): Promise<void> {
  const identity = core.runner.identity;
  if (!identity) {
    const check = await inspectStateFile(file, { runnerId: '', pairedAt: new Date(0).toISOString() });
    if (check.kind === 'missing') {
      out.write(`No state file at ${file} yet: pairing this machine instead.\n`);
      return;
    }
    const imported = await core.host.invoke('runner:import', { file });
    if (imported.ok) {
      const value = imported.value as CommandOutput<'runner:import'>;
      out.write(`Took over runner ${value.runnerId} from ${file}; its secret is now in the secret store.\n`);
      for (const note of value.notes) out.write(`  ${note}\n`);
    } else {
      out.write(`Could not take over ${file}: ${imported.error.message}\n`);
    }
    return;
  }
  const check = await inspectStateFile(file, identity);
  if (check.kind === 'other' && check.newer) {
    out.write(
      `Warning: ${file} is newer than this runner's identity and holds another runner (runner_id=${check.runnerId}` +
        `${check.hasSecret ? ', with its secret' : ''}). This machine stays runner ${identity.runnerId}. ` +
        'To take that runner over instead, unpair here (Pairing view, or delete the data folder) and start again with --state-file.\n',
    );
  } else if (check.kind === 'unreadable') {
    out.write(`Note: ${file} could not be read (${check.reason}); this machine stays runner ${identity.runnerId}.\n`);
  }
}

/**
 * No `--state-file` and not paired: if `rost runner serve` left its default state file for
 * this control plane (`<tmp>/rost-runner-<sha1(url)>.json`), point at it rather than
 * pairing a second runner for the same machine unasked.
 */
export async function mentionDefaultSeedFile(core: Core, out: Out, tmpDir = os.tmpdir()): Promise<void> {
  if (core.runner.identity) return;
  const url = core.settings.get().controlPlaneUrl;
  for (const candidate of new Set([seedStateFilePath(url, tmpDir), seedStateFilePath(`${url}/`, tmpDir)])) {
    try {
      await access(candidate);
    } catch {
      continue;
    }
    out.write(`Found a rost runner serve state file for this control plane: ${candidate}. To keep that runner, start with --state-file ${candidate}.\n`);
    return;
  }
}
