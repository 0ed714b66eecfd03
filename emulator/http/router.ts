import type { IncomingMessage } from 'node:http';
import type { Reply } from './reply';

/** `json` and `json-or-form` bodies must be objects; `json-any` passes any JSON value (JSON-RPC batches). */
export type BodyMode = 'none' | 'json' | 'json-any' | 'form' | 'json-or-form';

export interface RequestCtx {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  /** Parsed body: a plain object/array/value for JSON, a null-prototype record for forms, `{}` when empty. */
  body: unknown;
  ip: string;
  cookies: Record<string, string>;
  /** Aborted when the client goes away before the answer (held claims use it). */
  signal: AbortSignal;
}

export type Handler = (ctx: RequestCtx) => Reply | Promise<Reply>;

export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  pattern: string;
  body?: BodyMode;
  handler: Handler;
}

interface CompiledRoute extends RouteDef {
  segments: string[];
  paramCount: number;
}

export type RouteMatch =
  { kind: 'found'; route: CompiledRoute; params: Record<string, string> } | { kind: 'method_not_allowed'; allow: string[] } | { kind: 'not_found' };

/** Literal segments win over `:params`; a known path with the wrong method is a 405 with `Allow`. */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(...defs: RouteDef[]): this {
    for (const def of defs) {
      const segments = def.pattern.split('/').filter(Boolean);
      this.routes.push({ ...def, segments, paramCount: segments.filter((s) => s.startsWith(':')).length });
    }
    this.routes.sort((a, b) => a.paramCount - b.paramCount);
    return this;
  }

  list(): ReadonlyArray<Pick<RouteDef, 'method' | 'pattern' | 'body'>> {
    return this.routes.map(({ method, pattern, body }) => ({ method, pattern, ...(body ? { body } : {}) }));
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').filter(Boolean);
    const allow = new Set<string>();
    const lookup = method === 'HEAD' ? 'GET' : method;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === lookup) return { kind: 'found', route, params };
      allow.add(route.method);
    }
    return allow.size ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const value = parts[i]!;
    if (p.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        return null;
      }
      if (!decoded || decoded.length > 300) return null;
      params[p.slice(1)] = decoded;
    } else if (p !== value) {
      return null;
    }
  }
  return params;
}
