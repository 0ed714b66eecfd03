import { z } from 'zod';
import { command, NoInput } from './command';
import {
  CapacityViewSchema,
  ConfirmationViewSchema,
  LifecycleInputSchema,
  LifecycleOutcomeSchema,
  OperatorStatusSchema,
  RequestBoardSchema,
  RequestDetailViewSchema,
  ResumeInputSchema,
  SignOutResultSchema,
} from './operator';

/**
 * The operator side of the contract (sign-in, build requests and their lifecycle),
 * kept in its own file so the runner and the operator surfaces grow independently.
 * Merged into `commands` and `events` in contract.ts.
 */
export const operatorCommands = {
  /** Who is signed in (never a token), the sign-in flow, and whether lifecycle actions are open. */
  'operator:status': command(NoInput, OperatorStatusSchema),
  /** Starts an OAuth device flow; the code and address arrive in the answer and in `operator:state`. */
  'operator:sign-in': command(NoInput, OperatorStatusSchema),
  'operator:cancel-sign-in': command(NoInput, OperatorStatusSchema),
  /** Revokes the tokens at the control plane (RFC 7009), then deletes them here. */
  'operator:sign-out': command(NoInput, SignOutResultSchema),
  'requests:list': command(z.union([z.undefined(), z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict()]), RequestBoardSchema),
  'requests:show': command(z.object({ id: z.uuid() }).strict(), RequestDetailViewSchema),
  'requests:pause': command(LifecycleInputSchema, LifecycleOutcomeSchema),
  /** `terminationBound` raises the request's ceilings with the resume (after a `ceiling_reached` refusal). [v1] */
  'requests:resume': command(ResumeInputSchema, LifecycleOutcomeSchema),
  'requests:cancel': command(LifecycleInputSchema, LifecycleOutcomeSchema),
  /** The tenant's runner capacity, newest observation per runner (read-only). [v1] */
  'requests:capacity': command(NoInput, CapacityViewSchema),
  /** Follows a confirmation handoff (202) until a human decides in the browser. */
  'requests:confirmation': command(z.object({ id: z.string().min(1).max(200) }).strict(), ConfirmationViewSchema),
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export const operatorEvents = {
  'operator:state': OperatorStatusSchema,
} as const satisfies Record<string, z.ZodType>;
