import { z } from 'zod';

/**
 * A running turn's transcript as the runtime streams it: what the model says and thinks,
 * the commands it runs (with their exit codes), the files it changes, the tools it calls.
 * Every text is redacted by the core before it leaves it.
 *
 * Lines are numbered per turn from 0. A line still growing (a message the model is
 * writing) is `open` and is sent again, under the same number, as it grows.
 */
export const TRANSCRIPT_KINDS = ['text', 'reasoning', 'command', 'output', 'file', 'tool', 'note'] as const;
export type TranscriptKind = (typeof TRANSCRIPT_KINDS)[number];

/** Longest line kept: a longer one continues on the next line. */
export const TRANSCRIPT_LINE_MAX = 2_000;

export const TranscriptLineSchema = z.object({
  n: z.number().int().min(0),
  kind: z.enum(TRANSCRIPT_KINDS),
  text: z.string().max(TRANSCRIPT_LINE_MAX),
  /** A command's end: its exit code (null when it was killed or the runtime did not say). */
  exitCode: z.number().int().nullable().optional(),
  open: z.boolean().optional(),
});
export type TranscriptLine = z.infer<typeof TranscriptLineSchema>;

/** New and changed lines of one turn since the last update; `skipped` lines went past unsent (they are kept on disk). */
export const TranscriptUpdateSchema = z.object({
  id: z.string(),
  lines: z.array(TranscriptLineSchema),
  skipped: z.number().int().min(0),
});
export type TranscriptUpdate = z.infer<typeof TranscriptUpdateSchema>;

/** `turns:transcript` answer: the newest lines kept of a turn, running or finished. */
export const TranscriptViewSchema = z.object({
  id: z.string(),
  lines: z.array(TranscriptLineSchema),
  /** Lines the turn printed before the first one here (kept on disk, not sent). */
  earlier: z.number().int().min(0),
});
export type TranscriptView = z.infer<typeof TranscriptViewSchema>;

export const DEFAULT_TRANSCRIPT_MEMORY_KB = 256;
export const MIN_TRANSCRIPT_MEMORY_KB = 16;
export const MAX_TRANSCRIPT_MEMORY_KB = 16_384;
