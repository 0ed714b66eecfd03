import type { ZodError } from 'zod';

export type Headers = Record<string, string | string[]>;

export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Headers | undefined }
  | { kind: 'empty'; status: number; headers?: Headers | undefined }
  | { kind: 'html'; status: number; html: string; headers?: Headers | undefined }
  | { kind: 'raw'; status: number; text: string; contentType: string; headers?: Headers | undefined }
  | { kind: 'redirect'; status: 303 | 302; location: string; headers?: Headers | undefined };

export const json = (status: number, body: unknown, headers?: Headers): Reply => ({ kind: 'json', status, body, headers });
export const empty = (status: number, headers?: Headers): Reply => ({ kind: 'empty', status, headers });
export const html = (status: number, markup: string, headers?: Headers): Reply => ({ kind: 'html', status, html: markup, headers });
export const redirect = (location: string, headers?: Headers): Reply => ({ kind: 'redirect', status: 303, location, headers });

/** A failure with the JSON body `{ error, message, ...extra }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Headers = {},
  ) {
    super(message ?? code);
  }

  toReply(): Reply {
    return json(this.status, { error: this.code, message: this.message, ...this.extra }, this.headers);
  }
}

export const badRequest = (message: string, code = 'invalid_request'): HttpError => new HttpError(400, code, message);

/** One line naming each offending field, e.g. `telemetry.cpu.count: Invalid input: expected number`. */
export function describeZodError(error: ZodError, root = 'body', prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const inner = issue.path.map(String).join('.');
      const path = inner && prefix ? `${prefix}.${inner}` : inner;
      if (issue.code === 'unrecognized_keys') {
        const keys = (issue as { keys?: string[] }).keys ?? [];
        return `${path || root}: unknown field${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
      }
      return `${path || root}: ${issue.message}`;
    })
    .join('; ');
}
