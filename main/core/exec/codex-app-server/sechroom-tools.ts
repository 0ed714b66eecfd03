import { z } from 'zod';
import type { DynamicToolSet } from './dynamic-tools';

/**
 * The two tools the Sechroom connector lends a codex turn (sechroom-protocol.md B8): the
 * closeout the model must submit before its turn ends, and phase signals along the way.
 * Arguments are parsed with zod; a closeout the model got wrong is refused with the reason,
 * so the model can correct it, instead of being coerced into something it did not say.
 */
export const CloseoutSchema = z.object({
  terminal_status: z.enum(['completed', 'needs_approval', 'error', 'cancelled']),
  summary: z.string().min(1).max(12_000),
  evidence: z.array(z.string().max(2_000)).max(200).optional(),
});
export type Closeout = z.infer<typeof CloseoutSchema>;

export const LifecycleSignalSchema = z.object({
  phase: z.enum(['start', 'work', 'verify', 'closeout']),
  status: z.enum(['started', 'completed', 'skipped', 'blocked']),
  summary: z.string().max(2_000),
});
export type LifecycleSignal = z.infer<typeof LifecycleSignalSchema>;

export const CLOSEOUT_TOOL = 'sechroom_closeout';
export const LIFECYCLE_TOOL = 'sechroom_lifecycle_signal';
export const CLOSEOUT_NUDGE = `Your turn ended without calling ${CLOSEOUT_TOOL}. Call it now with terminal_status, summary and evidence of what you did.`;

function why(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
}

export function sechroomTools(handlers: { onCloseout(closeout: Closeout): void; onSignal?(signal: LifecycleSignal): void }): DynamicToolSet {
  return {
    tools: [
      {
        name: CLOSEOUT_TOOL,
        description:
          'Report how the task ended. Call this once, before you finish your turn: the honest terminal status, a summary of what was done, and the evidence (files changed, tests and checks run).',
        inputSchema: {
          type: 'object',
          properties: {
            terminal_status: { type: 'string', enum: ['completed', 'needs_approval', 'error', 'cancelled'] },
            summary: { type: 'string' },
            evidence: { type: 'array', items: { type: 'string' } },
          },
          required: ['terminal_status', 'summary'],
          additionalProperties: false,
        },
        handle: (args) => {
          const parsed = CloseoutSchema.safeParse(args);
          if (!parsed.success) return { text: `closeout refused: ${why(parsed.error)}`, success: false };
          handlers.onCloseout(parsed.data);
          return { text: 'closeout accepted' };
        },
      },
      {
        name: LIFECYCLE_TOOL,
        description:
          'Report progress at each phase boundary: phase (start, work, verify, closeout) and status (started, completed, skipped, blocked), with a short summary.',
        inputSchema: {
          type: 'object',
          properties: {
            phase: { type: 'string', enum: ['start', 'work', 'verify', 'closeout'] },
            status: { type: 'string', enum: ['started', 'completed', 'skipped', 'blocked'] },
            summary: { type: 'string' },
          },
          required: ['phase', 'status', 'summary'],
          additionalProperties: false,
        },
        handle: (args) => {
          const parsed = LifecycleSignalSchema.safeParse(args);
          if (!parsed.success) return { text: `signal refused: ${why(parsed.error)}`, success: false };
          handlers.onSignal?.(parsed.data);
          return { text: 'ok' };
        },
      },
    ],
    closeout: { tool: CLOSEOUT_TOOL, nudge: CLOSEOUT_NUDGE },
  };
}
