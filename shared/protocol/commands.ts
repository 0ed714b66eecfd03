import { z } from 'zod';
import {
  CapacityListInputSchema,
  CapacityListOutputSchema,
  LifecycleOutputSchema,
  RequestCancelInputSchema,
  RequestListInputSchema,
  RequestListOutputSchema,
  RequestPauseInputSchema,
  RequestResumeInputSchema,
  RequestShowInputSchema,
  RequestShowOutputSchema,
} from './forge';

/**
 * Operator commands over `POST /api/commands/{command_id}` with `{ input }` and the
 * operator bearer; a 200 answers `{ output }`. [seed: ids and fields; v1: transport]
 */
export const FORGE_COMMANDS = {
  'software_factory.request.list': { input: RequestListInputSchema, output: RequestListOutputSchema, scope: 'tenant' },
  'software_factory.request.show': { input: RequestShowInputSchema, output: RequestShowOutputSchema, scope: 'tenant' },
  'software_factory.request.pause': { input: RequestPauseInputSchema, output: LifecycleOutputSchema, scope: 'tenant_admin' },
  'software_factory.request.cancel': { input: RequestCancelInputSchema, output: LifecycleOutputSchema, scope: 'tenant_admin' },
  'software_factory.request.resume': { input: RequestResumeInputSchema, output: LifecycleOutputSchema, scope: 'tenant_admin' },
  'software_factory.capacity.list': { input: CapacityListInputSchema, output: CapacityListOutputSchema, scope: 'tenant' },
} as const;

export type ForgeCommandId = keyof typeof FORGE_COMMANDS;
export type ForgeCommandInput<Id extends ForgeCommandId> = z.input<(typeof FORGE_COMMANDS)[Id]['input']>;
export type ForgeCommandOutput<Id extends ForgeCommandId> = z.infer<(typeof FORGE_COMMANDS)[Id]['output']>;

/** Lifecycle commands are tenant-admin and human-gated. [seed] */
export const LIFECYCLE_COMMAND_IDS = [
  'software_factory.request.pause',
  'software_factory.request.cancel',
  'software_factory.request.resume',
] as const satisfies readonly ForgeCommandId[];
export type LifecycleCommandId = (typeof LIFECYCLE_COMMAND_IDS)[number];

export const CommandRequestSchema = z.object({ input: z.unknown().default({}) });

/** Wraps a command's output schema in the `{ output }` envelope. */
export function commandResponseSchema<T extends z.ZodType>(output: T) {
  return z.object({ output });
}

/** `GET /api/operator/me`: who the operator bearer belongs to. [v1] */
export const OPERATOR_ROLES = ['tenant_admin', 'member'] as const;
export const OperatorRoleSchema = z.enum(OPERATOR_ROLES);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;
export const OperatorIdentitySchema = z.object({
  operator_id: z.string().min(1),
  tenant_id: z.string().min(1),
  name: z.string(),
  role: OperatorRoleSchema,
});
export type OperatorIdentity = z.infer<typeof OperatorIdentitySchema>;
