import { z } from 'zod';
import { UNIT_PROMPT_MAX_BYTES } from '../../../shared/protocol';
import { plainHttpProblem as mcpUrlProblem } from '../../../shared/transport-security';
import type { Logger } from '../base/ports';
import type { ExecutionRequest } from './executor-port';

/**
 * The checks an execution request passes before anything of its turn is made: the request's
 * shape (zod), the prompt's size bound of the protocol, and the MCP URL's transport. A request
 * that fails one comes back as the message of a failed outcome; nothing was run for it.
 */
const RequestSchema = z.object({
  unitId: z.string().min(1).max(200),
  kind: z.enum(['turn_execution', 'work_order']),
  runtime: z.enum(['claude', 'codex']),
  binary: z.string().min(1),
  prompt: z.string(),
  mcp: z
    .object({
      serverUrl: z.url({ protocol: /^https?$/ }),
      // Goes into an HTTP header and an environment variable: visible ASCII only.
      token: z.string().regex(/^[\x21-\x7e]+$/, 'token must be visible ASCII without spaces'),
    })
    .nullable(),
  // Passed as an option value: must not look like an option itself.
  resumeSessionId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/)
    .nullable(),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(7 * 24 * 3_600_000),
  env: z.record(z.string(), z.string()).optional(),
  knownSecrets: z.array(z.string()),
});

/** Why the request may not run (the failed outcome's message), or null when it may. */
export function requestProblem(request: ExecutionRequest, log: Logger): string | null {
  const parsed = RequestSchema.safeParse(request);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ');
    log.error('invalid execution request', { unitId: request.unitId, issues: where });
    return `invalid execution request (${where})`;
  }
  const promptBytes = Buffer.byteLength(request.prompt, 'utf8');
  if (promptBytes > UNIT_PROMPT_MAX_BYTES) {
    log.warn('prompt over the protocol bound; nothing was run', { unitId: request.unitId, bytes: promptBytes });
    return `The unit's prompt is ${promptBytes} bytes; a unit's prompt may be at most ${UNIT_PROMPT_MAX_BYTES} bytes (1 MiB). Nothing was run.`;
  }
  const mcpProblem = request.mcp ? mcpUrlProblem(request.mcp.serverUrl) : null;
  if (mcpProblem) return `The unit's MCP URL was refused: ${mcpProblem}. Nothing was run.`;
  return null;
}
