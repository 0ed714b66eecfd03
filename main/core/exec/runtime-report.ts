import type { Usage } from '../../../shared/protocol';

/** What a runtime's structured output said about its turn, before the exit code is weighed. */
export interface RuntimeReport {
  /** The runtime's own verdict; null when its output carried none (the exit code decides). */
  ok: boolean | null;
  /** The answer (or the error) to use as the summary; null: fall back to the raw output. */
  text: string | null;
  /** claude `session_id` / codex `thread_id`. */
  sessionId?: string | undefined;
  usage?: Usage | undefined;
  /** Tools the runtime refused to run for lack of permission (claude `permission_denials`). */
  deniedTools?: string[];
}
