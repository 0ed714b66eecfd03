/** Longest error text the window or a log line carries. */
export const ERROR_TEXT_MAX = 300;

/** Node's system errors (ENOENT, EACCES, ENOSPC…): the code is what an operator can search for. */
const ERRNO_CODE = /^E[A-Z0-9]+$/;

/**
 * The one line the window and the logs show for anything thrown or rejected: the first
 * non-empty line of its message (or its `code`, when it has no message), led by a system
 * error's code when the message lacks it, at most ERROR_TEXT_MAX characters. Never throws.
 *
 * It does not redact: where an error may carry a secret, the caller passes the text
 * through redactText with the secrets it knows (the logger redacts all it writes).
 */
export function errorText(error: unknown): string {
  let text: string;
  try {
    const line =
      messageOf(error)
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l.length > 0) ?? '';
    const code = codeOf(error);
    text = code && ERRNO_CODE.test(code) && !line.includes(code) ? (line ? `${code}: ${line}` : code) : line || code || 'unknown error';
  } catch {
    // A message or code getter that throws: there is nothing to say but that.
    text = 'unknown error';
  }
  return text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX - 1)}…` : text;
}

function messageOf(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint') return String(error);
  if (typeof error !== 'object' || error === null) return '';
  const { message } = error as { message?: unknown };
  if (typeof message === 'string' && message.trim().length > 0) return message;
  return error instanceof Error ? error.name : '';
}

function codeOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && code.length > 0 ? code : null;
}
