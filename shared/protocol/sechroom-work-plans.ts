import { z } from 'zod';
import { DecompositionIdSchema, MemoryIdSchema } from './sechroom';

/*
 * The work-plan and work-task verbs of seed B13 whose bodies the seed builds from an input
 * file (`--file <path|->`): create a plan from a brief or from hand-authored tasks, append
 * tasks to a plan ("they land proposed until ratified"), produce a task's residue or mark it
 * as having none. The task and residue shapes are [absent] from the seed (it passes the file
 * through); these are ours, and docs/protocol.md records them.
 */

const longText = z.string().max(64 * 1024);

/** One hand-authored task; `wakeAtMs` (Unix ms) holds it back until then. */
export const PlanTaskInputSchema = z.object({
  title: z.string().trim().min(1).max(500),
  objective: longText.optional(),
  acceptance: longText.optional(),
  boundaries: longText.optional(),
  closeout: longText.optional(),
  lane: z.string().min(1).max(200).nullish(),
  capabilityKeys: z.array(z.string().min(1).max(200)).max(50).optional(),
  wakeAtMs: z.number().int().min(0).optional(),
});
export type PlanTaskInput = z.infer<typeof PlanTaskInputSchema>;

export const DecomposeResponseSchema = z.object({ suggestionId: DecompositionIdSchema });

/** `work-plan create-from-tasks`: `{ project, tasks, source? }`. */
export const DecomposeFromPlanInputSchema = z.object({
  project: z.string().trim().min(1).max(200),
  tasks: z.array(PlanTaskInputSchema).min(1).max(500),
  source: z.string().min(1).max(200).optional(),
});
export type DecomposeFromPlanInput = z.infer<typeof DecomposeFromPlanInputSchema>;
export const DecomposeFromPlanResponseSchema = z.object({ suggestionId: DecompositionIdSchema, taskCount: z.number().int() });

/** `work-plan append` (the AppendTasksInput shape): `{ tasks, gates? }`. */
export const AppendTasksInputSchema = z.object({
  tasks: z.array(PlanTaskInputSchema).min(1).max(500),
  gates: z.array(z.string().min(1).max(200)).max(100).optional(),
});
export type AppendTasksInput = z.infer<typeof AppendTasksInputSchema>;
export const AppendTasksResponseSchema = z.object({
  id: DecompositionIdSchema,
  appendedTaskIds: z.array(MemoryIdSchema),
  /** `proposed` on a running plan until it is ratified (accepted again); `ready` on a plan not accepted yet. */
  landedAs: z.enum(['proposed', 'ready']),
});

/** One typed residue item of a task (its `kind`, e.g. `doc`, `decision`, `follow-up`, and what it says). */
export const ResidueSchema = z.object({
  kind: z.string().trim().min(1).max(100),
  title: z.string().max(500).optional(),
  body: longText.optional(),
});
export const ProduceResidueInputSchema = z.object({ taskId: MemoryIdSchema, residues: z.array(ResidueSchema).min(1).max(100) });
export type ProduceResidueInput = z.infer<typeof ProduceResidueInputSchema>;
export const ProduceResidueResponseSchema = z.object({
  produced: z.array(z.object({ id: z.string(), taskId: MemoryIdSchema, kind: z.string() })),
});

export const MarkNoResidueInputSchema = z.object({ taskId: MemoryIdSchema, decompositionId: DecompositionIdSchema });
/** `minted`: the marker is new (false: it was there already; marking again changes nothing). */
export const MarkNoResidueResponseSchema = z.object({ taskId: MemoryIdSchema, decompositionId: DecompositionIdSchema, minted: z.boolean() });
