import type { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';
import { describeZodError } from '../../../shared/result';
import { plainHttpProblem } from '../../../shared/transport-security';
import { ConnectorError } from './errors';
import { proxyAwareFetch } from './proxy-fetch';

/** What the client reads of an answer (a fetch `Response` is one). */
export interface FetchResponse {
  readonly status: number;
  text(): Promise<string>;
}
export type FetchLike = (input: string, init: RequestInit) => Promise<FetchResponse>;

export interface JsonRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  bearer?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** application/x-www-form-urlencoded instead of JSON (OAuth token endpoints). */
  form?: Record<string, string>;
  /** Extra headers (e.g. Sechroom's `tenant` and `x-sechroom-surface`); never the bearer, which has its own field. */
  headers?: Record<string, string>;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

const MAX_ERROR_TEXT = 300;

/** node:http, or undici through the proxy the environment names (proxy-fetch.ts). */
const defaultFetch = proxyAwareFetch();

/**
 * One JSON exchange with a control plane: a deadline, the bearer, and an answer that is
 * classified (network, timeout, 401, 5xx, 4xx) before anyone reads it. Bodies of errors
 * are redacted before they can reach a message or a log.
 */
export class JsonHttpClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly knownSecrets: () => readonly string[] = () => [],
  ) {}

  get origin(): string {
    return new URL(this.baseUrl).origin;
  }

  async request(req: JsonRequest): Promise<JsonResponse> {
    const url = new URL(req.path, this.baseUrl).toString();
    // Bearers and secrets travel in these requests: plain HTTP only to this machine.
    const insecure = plainHttpProblem(url);
    if (insecure) throw new ConnectorError('rejected', `refusing to contact ${new URL(url).origin}: ${insecure}`);
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    } else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
    let response: FetchResponse;
    try {
      response = await this.fetchImpl(url, { method: req.method, headers, ...(body !== undefined ? { body } : {}), signal, redirect: 'error' });
    } catch (error) {
      if (timeout.aborted) throw new ConnectorError('timeout', `${req.method} ${req.path} timed out after ${req.timeoutMs} ms`);
      if (req.signal?.aborted) throw new ConnectorError('network', `${req.method} ${req.path} was canceled`);
      throw new ConnectorError(
        'network',
        `${req.method} ${req.path} failed: ${this.clean(errorText(error instanceof Error && error.cause !== undefined ? error.cause : error))}`,
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new ConnectorError('network', `${req.method} ${req.path}: the connection dropped while reading the answer`);
    }
    let parsed: unknown = null;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const status = response.status;
    if (status === 401) throw new ConnectorError('unauthorized', `${req.path}: the control plane refused our credentials (401)`, 401, this.errorCode(parsed));
    if (status === 404) throw new ConnectorError('not_found', `${req.path}: not found (404)`, 404, this.errorCode(parsed));
    if (status >= 500) throw new ConnectorError('server', `${req.path}: server error ${status}: ${this.clean(text)}`, status, this.errorCode(parsed));
    if (parsed === undefined) throw new ConnectorError('invalid_response', `${req.path}: the answer (${status}) is not JSON`, status);
    return { status, body: parsed };
  }

  /** Parses a 2xx body with the wire schema; anything else is the caller's to interpret. */
  parse<T extends z.ZodType>(path: string, response: JsonResponse, schema: T): z.output<T> {
    const result = schema.safeParse(response.body);
    if (!result.success) {
      throw new ConnectorError('invalid_response', `${path}: the answer does not fit the protocol (${describeZodError(result.error)})`, response.status);
    }
    return result.data;
  }

  rejected(path: string, response: JsonResponse): ConnectorError {
    const code = this.errorCode(response.body);
    return new ConnectorError('rejected', `${path}: refused (${response.status}${code ? ` ${code}` : ''})`, response.status, code);
  }

  /** The body's `error` code, redacted: a control plane may echo anything back, our secret included. */
  private errorCode(body: unknown): string | undefined {
    const code = errorCode(body);
    return code === undefined ? undefined : redactText(code, this.knownSecrets());
  }

  private clean(text: string): string {
    return redactText(text, this.knownSecrets()).slice(0, MAX_ERROR_TEXT);
  }
}

function errorCode(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'error' in body && typeof (body as { error: unknown }).error === 'string') {
    return (body as { error: string }).error.slice(0, 100);
  }
  return undefined;
}
