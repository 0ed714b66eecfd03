import { z } from 'zod';
import type { RuntimeReport } from './runtime-report';

/**
 * `claude -p … --output-format json` prints one result object. `subtype` stays "success"
 * even when the turn failed (an API error, a refused request), so `is_error` decides.
 */
const ClaudeUsageSchema = z.looseObject({
  input_tokens: z.number().nonnegative().optional(),
  output_tokens: z.number().nonnegative().optional(),
  cache_creation_input_tokens: z.number().nonnegative().optional(),
  cache_read_input_tokens: z.number().nonnegative().optional(),
});

export const ClaudeResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string().optional(),
  is_error: z.boolean(),
  result: z.string().optional(),
  session_id: z.string().min(1).optional(),
  /** The seed reads `session_id ?? sessionId`. [seed] */
  sessionId: z.string().min(1).optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  usage: ClaudeUsageSchema.optional(),
  permission_denials: z.array(z.looseObject({ tool_name: z.string().optional() })).optional(),
});
export type ClaudeResult = z.infer<typeof ClaudeResultSchema>;

/** The result object in `stdout`: the whole text, else its last line that parses. */
export function findClaudeResult(stdout: string): ClaudeResult | null {
  const candidates = [stdout.trim(), ...stdout.trim().split('\n').reverse()];
  for (const candidate of candidates) {
    const line = candidate.trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed = ClaudeResultSchema.safeParse(JSON.parse(line));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return null;
}

const whole = (n: number | undefined) => Math.max(0, Math.round(n ?? 0));

/** Reads a claude JSON result; `ok: null` when there was none (the exit code decides). */
export function claudeJsonReport(stdout: string): RuntimeReport {
  return claudeReport(findClaudeResult(stdout));
}

/** The report of a claude result object (`ok: null` without one). */
export function claudeReport(result: ClaudeResult | null): RuntimeReport {
  if (!result) return { ok: null, text: null };
  const usage = result.usage;
  return {
    ok: !result.is_error,
    text: result.result ?? null,
    sessionId: (result.session_id ?? result.sessionId)?.trim() || undefined,
    // Cache reads and writes are input the model processed too; count them so claude and
    // codex (whose input_tokens already include cached tokens) report the same thing.
    usage: usage
      ? {
          input_tokens: whole(usage.input_tokens) + whole(usage.cache_creation_input_tokens) + whole(usage.cache_read_input_tokens),
          output_tokens: whole(usage.output_tokens),
          ...(result.total_cost_usd !== undefined ? { cost_usd: result.total_cost_usd } : {}),
        }
      : undefined,
    deniedTools: (result.permission_denials ?? []).map((d) => d.tool_name ?? 'unknown'),
  };
}
