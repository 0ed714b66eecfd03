import { errorText } from '../../../../shared/errors';
import {
  AppendTasksInputSchema,
  DecomposeFromPlanInputSchema,
  ProduceResidueInputSchema,
  type AppendTasksInput,
  type DecomposeFromPlanInput,
  type ProduceResidueInput,
} from '../../../../shared/protocol/sechroom-work-plans';
import type { z } from 'zod';

/*
 * The input files of the seed's `work-plan create-from-tasks|append --file` and `work-task
 * residue-produce --file` (seed 2521–2533, 3473–3486): its three messages word for word for
 * what it checks (JSON, a tasks array, a non-empty residues array), then each file's shape
 * checked with zod (the seed passes it on unchecked), said as `<source>: <field>: <problem>`.
 */

export class WorkInputError extends Error {
  override readonly name = 'WorkInputError';
}

export const notValidJson = (source: string, error: unknown) => `${source} is not valid JSON: ${errorText(error)}`;
export const needsTasksArray = (source: string) => `${source} must contain an object with a tasks array`;
export const needsResidues = (source: string) => `${source} must contain a non-empty residues array`;

function parseJson(raw: string, source: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new WorkInputError(notValidJson(source, error));
  }
}

function checked<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new WorkInputError(`${source}: ${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'not valid'}`);
}

const withTasks = (value: unknown): value is { tasks: unknown[] } =>
  Boolean(value) && typeof value === 'object' && Array.isArray((value as { tasks?: unknown }).tasks);

/** `{ project, tasks, source? }` for `work-plan create-from-tasks`. */
export function parsePlanInput(raw: string, source = 'plan input'): DecomposeFromPlanInput {
  const value = parseJson(raw, source);
  if (!withTasks(value)) throw new WorkInputError(needsTasksArray(source));
  return checked(DecomposeFromPlanInputSchema, value, source);
}

/** `{ tasks, gates? }` for `work-plan append`. */
export function parseAppendInput(raw: string, source = 'append input'): AppendTasksInput {
  const value = parseJson(raw, source);
  if (!withTasks(value)) throw new WorkInputError(needsTasksArray(source));
  return checked(AppendTasksInputSchema, value, source);
}

/** A residues array, or an object with one, for `work-task residue-produce <taskId>`. */
export function parseResidueInput(raw: string, source: string, taskId: string): ProduceResidueInput {
  const value = parseJson(raw, source);
  const residues = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as { residues?: unknown }).residues : undefined;
  if (!Array.isArray(residues) || residues.length === 0) throw new WorkInputError(needsResidues(source));
  return checked(ProduceResidueInputSchema, { taskId, residues }, source);
}
