import { z } from 'zod';

/** Every command answers with data, never a thrown error across a process boundary. */
export const CommandErrorSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  /** The input field the error is about, when there is one (inline validation). */
  field: z.string().optional(),
});
export type CommandError = z.infer<typeof CommandErrorSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: CommandError };

/** Error codes the transports themselves produce (handlers add their own). */
export const TransportErrorCode = {
  unknownCommand: 'unknown_command',
  invalidInput: 'invalid_input',
  untrustedSender: 'untrusted_sender',
  internal: 'internal',
  disconnected: 'disconnected',
} as const;

/** One line naming the first offending field, for people and logs. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const path = issue.path.length ? issue.path.join('.') : 'input';
  return `${path}: ${issue.message}`;
}
