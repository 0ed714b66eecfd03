import {
  ClaimResponseSchema,
  HeartbeatResponseSchema,
  LanesResponseSchema,
  LeaseHeartbeatResponseSchema,
  PairingClaimErrorSchema,
  PairingClaimResponseSchema,
  PairingStartResponseSchema,
  ResultAcceptedSchema,
  UNIT_ID_FIELD,
  UNIT_PATH_SEGMENT,
  type PairingClaimByCode,
  type HeartbeatRequest,
  type PairingStartRequest,
  type PlaneLane,
  type ResultRequest,
  type UnitKind,
} from '../../../../shared/protocol';
import type { ClaimedWork, ClaimOptions, PairingPoll, ResultDelivery, RunnerConnector, RunnerCredentials } from './connector';
import { redactText } from '../../../../shared/redact';
import { ConnectorError } from '../../connectors/errors';
import { JsonHttpClient, type FetchLike } from '../../connectors/http-json';

const REQUEST_TIMEOUT_MS = 15_000;
/** A long-poll claim may be held this much longer than it asked for before we give up. */
const LONG_POLL_GRACE_MS = 10_000;

export interface RostConnectorOptions {
  baseUrl: string;
  fetch?: FetchLike;
  /** Secrets to scrub from any error text (the runner secret, MCP tokens). */
  knownSecrets?: () => readonly string[];
}

/** The Rost runner protocol (docs/protocol.md §1–4) over HTTPS. */
export class RostRunnerConnector implements RunnerConnector {
  private readonly http: JsonHttpClient;

  private readonly knownSecrets: () => readonly string[];

  constructor(options: RostConnectorOptions) {
    this.http = new JsonHttpClient(options.baseUrl, options.fetch, options.knownSecrets);
    this.knownSecrets = options.knownSecrets ?? (() => []);
  }

  get origin(): string {
    return this.http.origin;
  }

  async startPairing(request: PairingStartRequest) {
    const path = '/api/runner/pairing/start';
    const res = await this.http.request({ method: 'POST', path, body: request, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.http.rejected(path, res);
    return this.http.parse(path, res, PairingStartResponseSchema);
  }

  pollPairing(pairingId: string): Promise<PairingPoll> {
    return this.claimPairing({ pairing_id: pairingId });
  }

  /** Claims credentials with a user code an operator got elsewhere (seed `--user-code`). */
  pollPairingByCode(claim: PairingClaimByCode): Promise<PairingPoll> {
    return this.claimPairing(claim);
  }

  private async claimPairing(body: { pairing_id: string } | PairingClaimByCode): Promise<PairingPoll> {
    const path = '/api/runner/pairing/claim';
    const res = await this.http.request({ method: 'POST', path, body, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status === 200) return { kind: 'approved', credentials: this.http.parse(path, res, PairingClaimResponseSchema) };
    if (res.status === 400 || res.status === 403 || res.status === 410) {
      const error = PairingClaimErrorSchema.safeParse(res.body);
      if (error.success) {
        switch (error.data.error) {
          case 'authorization_pending':
            return { kind: 'pending' };
          case 'slow_down':
            return { kind: 'slow_down', ...(error.data.interval !== undefined ? { intervalSeconds: error.data.interval } : {}) };
          case 'access_denied':
            return { kind: 'denied' };
          case 'expired_token':
            return { kind: 'expired' };
        }
      }
    }
    throw this.http.rejected(path, res);
  }

  async unpair(credentials: RunnerCredentials): Promise<void> {
    const path = '/api/runner/unpair';
    const res = await this.http.request({ method: 'POST', path, body: {}, bearer: credentials.secret, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status < 200 || res.status >= 300) throw this.http.rejected(path, res);
  }

  async heartbeat(credentials: RunnerCredentials, body: HeartbeatRequest) {
    const path = '/api/runner/heartbeat';
    const res = await this.http.request({ method: 'POST', path, body, bearer: credentials.secret, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.http.rejected(path, res);
    return this.http.parse(path, res, HeartbeatResponseSchema);
  }

  async claim(credentials: RunnerCredentials, options: ClaimOptions): Promise<ClaimedWork | null> {
    const path = '/api/runner/work-orders/claim';
    const body: Record<string, unknown> = {};
    if (options.interactiveOnly) body.interactive_only = true;
    if (options.waitMs !== undefined) body.wait_ms = options.waitMs;
    if (options.runtimes) body.runtimes = options.runtimes;
    if (options.heartbeat) body.heartbeat = options.heartbeat.body;
    if (options.notices) body[options.notices.only ? 'notices_only' : 'notices'] = true;
    if (options.notices?.canceling.length) body.canceling = options.notices.canceling.slice(0, 100);
    const res = await this.http.request({
      method: 'POST',
      path,
      body,
      bearer: credentials.secret,
      timeoutMs: REQUEST_TIMEOUT_MS + (options.waitMs ?? 0) + (options.waitMs ? LONG_POLL_GRACE_MS : 0),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (res.status === 204 || (res.status === 200 && res.body === null)) return null;
    if (res.status !== 200) throw this.http.rejected(path, res);
    const parsed = this.http.parse(path, res, ClaimResponseSchema);
    if (parsed.heartbeat && options.heartbeat) options.heartbeat.answered(parsed.heartbeat);
    if (parsed.cancels?.length && options.notices) options.notices.heard(parsed.cancels);
    // A read held for notices alone takes no unit; a server that handed one anyway lets its lease lapse.
    if (options.notices?.only) return null;
    if (parsed.turn_execution) return { ...parsed.turn_execution, kind: 'turn_execution' };
    if (parsed.work_order) return { ...parsed.work_order, kind: 'work_order' };
    return null;
  }

  async start(credentials: RunnerCredentials, unit: { id: string; kind: UnitKind }): Promise<void> {
    const path = unitPath(unit, 'start');
    const body = { [UNIT_ID_FIELD[unit.kind]]: unit.id };
    const res = await this.http.request({ method: 'POST', path, body, bearer: credentials.secret, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status < 200 || res.status >= 300) {
      // The seed's line: `<unit> start failed <status>: <redacted body>`.
      const said = redactText(JSON.stringify(res.body ?? null), this.knownSecrets()).slice(0, 500);
      throw new ConnectorError('rejected', `${UNIT_LABEL[unit.kind]} start failed ${res.status}: ${said}`, res.status);
    }
  }

  async leaseHeartbeat(credentials: RunnerCredentials, unit: { id: string; kind: UnitKind }, body: { elapsed_ms: number }, opts: { timeoutMs?: number } = {}) {
    const path = unitPath(unit, 'heartbeat');
    try {
      const timeoutMs = Math.min(REQUEST_TIMEOUT_MS, opts.timeoutMs ?? REQUEST_TIMEOUT_MS);
      const res = await this.http.request({ method: 'POST', path, body, bearer: credentials.secret, timeoutMs });
      if (res.status !== 200) throw this.http.rejected(path, res);
      return this.http.parse(path, res, LeaseHeartbeatResponseSchema);
    } catch (error) {
      // A seed-era server has no lease heartbeat endpoint: run without one.
      if (error instanceof ConnectorError && error.kind === 'not_found' && error.code === undefined) return null;
      throw error;
    }
  }

  async lanes(credentials: RunnerCredentials): Promise<readonly PlaneLane[] | null> {
    const path = '/api/runner/lanes';
    try {
      const res = await this.http.request({ method: 'GET', path, bearer: credentials.secret, timeoutMs: REQUEST_TIMEOUT_MS });
      if (res.status !== 200) throw this.http.rejected(path, res);
      return this.http.parse(path, res, LanesResponseSchema).lanes;
    } catch (error) {
      // A plane without the read lists no lanes.
      if (error instanceof ConnectorError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  async report(credentials: RunnerCredentials, unit: { id: string; kind: UnitKind }, result: ResultRequest): Promise<ResultDelivery> {
    const path = unitPath(unit, 'result');
    const body = { ...result, [UNIT_ID_FIELD[unit.kind]]: unit.id };
    const res = await this.http.request({ method: 'POST', path, body, bearer: credentials.secret, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status === 409) return 'already_recorded';
    if (res.status !== 200) throw this.http.rejected(path, res);
    this.http.parse(path, res, ResultAcceptedSchema);
    return 'accepted';
  }
}

const UNIT_LABEL: Record<UnitKind, string> = { turn_execution: 'Turn execution', work_order: 'Work order' };

function unitPath(unit: { id: string; kind: UnitKind }, action: 'start' | 'heartbeat' | 'result'): string {
  return `/api/runner/${UNIT_PATH_SEGMENT[unit.kind]}/${encodeURIComponent(unit.id)}/${action}`;
}
