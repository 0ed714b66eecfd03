import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorText } from '../../../../shared/errors';
import type { InstanceSettingsInput } from '../../../../shared/sechroom-instance-settings';

/*
 * `.sechroom/executor.json`, the advertisement `sechroom executor install` writes in a
 * checkout (seed B1.3) and `executor run` starts from (B1.1): read from the working folder,
 * not from `--root`, as the seed does (B15.15; its "sem" file is absent from the seed, so
 * `<cwd>/.sechroom/executor.json` is the one place). The seed only JSON.parses it; here it is
 * checked with zod and its settings then go through the instance settings' own checks.
 */

export const EXECUTOR_STATE_FILE = path.join('.sechroom', 'executor.json');

export const NO_EXECUTOR_STATE = 'executor run requires an installed executor advertisement; run `sechroom executor install` first.';
export const stateRuntimeNotCodex = (runtime: string) => `this checkout's executor advertisement is runtime '${runtime}' — reinstall with --runtime codex.`;

/** What the seed writes (and, after registering, `instanceId`/`lastRefreshAt`); other keys are left alone. */
export const ExecutorStateSchema = z.looseObject({
  schemaVersion: z.literal(1).optional(),
  instanceKey: z.string({ error: 'instanceKey must be text' }).min(1, { error: 'instanceKey must not be empty' }),
  relayId: z.string().optional(),
  laneId: z.string().nullish(),
  runtime: z.string({ error: 'runtime must be text' }),
  connectorId: z.string().nullish(),
  capabilityKeys: z.array(z.string()).optional(),
  ttlSeconds: z.number().optional(),
  refreshAfterSeconds: z.number().nullish(),
  instanceId: z.string().optional(),
  lastRefreshAt: z.string().optional(),
});
export type ExecutorState = z.infer<typeof ExecutorStateSchema>;

export class ExecutorStateError extends Error {
  override readonly name = 'ExecutorStateError';
}

/** The checkout's advertisement, or null when there is none. Throws ExecutorStateError when it cannot be read or used. */
export async function readExecutorState(cwd: string): Promise<{ state: ExecutorState; path: string } | null> {
  const file = path.join(cwd, EXECUTOR_STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw new ExecutorStateError(`cannot read ${file}: ${errorText(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ExecutorStateError(`${file} is not valid JSON: ${errorText(error)}`);
  }
  const parsed = ExecutorStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ExecutorStateError(`${file}: ${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'not an executor advertisement'}`);
  }
  return { state: parsed.data, path: file };
}

/** The instance settings an advertisement gives (flags override them, as the seed's do). */
export function settingsOfState(state: ExecutorState): Omit<InstanceSettingsInput, 'root'> {
  return {
    instanceKey: state.instanceKey,
    ...(state.laneId != null ? { laneId: state.laneId } : {}),
    ...(state.connectorId != null ? { connectorId: state.connectorId } : {}),
    ...(state.relayId !== undefined ? { relayId: state.relayId } : {}),
    ...(state.capabilityKeys !== undefined ? { capabilityKeys: state.capabilityKeys } : {}),
    ...(state.ttlSeconds !== undefined ? { ttlSeconds: state.ttlSeconds } : {}),
    ...(state.refreshAfterSeconds != null ? { refreshAfterSeconds: state.refreshAfterSeconds } : {}),
  };
}
