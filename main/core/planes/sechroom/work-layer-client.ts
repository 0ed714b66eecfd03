import type { z } from 'zod';
import {
  LeaseNoticesSchema,
  BriefLifecycleResponseSchema,
  BriefStatusResponseSchema,
  BundlePackageSchema,
  DecompositionListSchema,
  DecompositionResumeResponseSchema,
  DecompositionSchema,
  ClaimResultSchema,
  DispatchOffersSchema,
  ExecutorInstanceSchema,
  InstanceDeregisterResponseSchema,
  InstanceRefreshResponseSchema,
  LeaseCompleteResponseSchema,
  LeaseHeartbeatResponseSchema,
  ReturnForRevisionResponseSchema,
  RunTelemetryIngestResponseSchema,
  SECHROOM_SURFACE_HEADER,
  SECHROOM_TENANT_HEADER,
  SechroomIdentitySchema,
  TaskCardSchema,
  WorkBriefListSchema,
  WorkTaskListSchema,
  type BRIEF_STATUS_TARGETS,
  type ExecutorRegistrationInput,
  type LeaseCompleteInput,
  type RunTelemetryEvent,
} from '../../../../shared/protocol/sechroom';
import {
  AppendTasksResponseSchema,
  DecomposeFromPlanResponseSchema,
  DecomposeResponseSchema,
  MarkNoResidueResponseSchema,
  ProduceResidueResponseSchema,
  type AppendTasksInput,
  type DecomposeFromPlanInput,
  type ProduceResidueInput,
} from '../../../../shared/protocol/sechroom-work-plans';
import { ConnectorError, isConnectorError } from '../../connectors/errors';
import { JsonHttpClient, type FetchLike } from '../../connectors/http-json';
import { AuthExpiredError, stillUnauthorizedMessage, type SechroomTokenSource } from './sechroom-auth';

const REQUEST_TIMEOUT_MS = 15_000;
/** A held offers read may take this much longer than it asked for before we give up. */
const LONG_POLL_GRACE_MS = 10_000;
/** What Runner Tray calls itself in `x-sechroom-surface` (the seed says `cli`). [v1] */
export const RUNNER_TRAY_SURFACE = 'runner-tray';

export interface WorkLayerClientOptions {
  /** The Work Layer base URL, e.g. `http://127.0.0.1:7457/sechroom`; the seed's paths follow it. */
  baseUrl: string;
  tenant: string;
  tokens: SechroomTokenSource;
  surface?: string;
  fetch?: FetchLike;
  /** Secrets to scrub from any error text (tokens, claim tokens). */
  knownSecrets?: () => readonly string[];
}

type Method = 'GET' | 'POST' | 'DELETE';
interface CallOptions {
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const seg = encodeURIComponent;

/**
 * The Work Layer's executor API (docs/protocol.md §12, seed B3/B4): the bearer plus the
 * `tenant` and `x-sechroom-surface` headers on every call; one refresh after a 401, then
 * the seed's "re-authenticate"; every answer parsed with the wire schema. Errors are
 * ConnectorErrors by what a caller should do: `network`/`timeout`/`server`/`invalid_response`
 * (an empty or malformed 2xx body) are retryable, `rejected`/`not_found` carry the status
 * and the server's error code, AuthExpiredError means sign in again.
 */
export class WorkLayerClient {
  private readonly http: JsonHttpClient;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: WorkLayerClientOptions) {
    const url = new URL(options.baseUrl);
    this.http = new JsonHttpClient(url.origin, options.fetch, options.knownSecrets);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = { [SECHROOM_TENANT_HEADER]: options.tenant, [SECHROOM_SURFACE_HEADER]: options.surface ?? RUNNER_TRAY_SURFACE };
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  me() {
    return this.call('GET', '/me', SechroomIdentitySchema);
  }

  // ---- instances (E1, E2, E10) ----

  register(input: ExecutorRegistrationInput) {
    return this.call('POST', '/me/executor-instances', ExecutorInstanceSchema, { body: input });
  }

  refreshInstance(instanceId: string, ttlSeconds: number | null) {
    return this.call('POST', `/me/executor-instances/${seg(instanceId)}/refresh`, InstanceRefreshResponseSchema, { body: { ttlSeconds } });
  }

  deregister(instanceId: string) {
    return this.call('DELETE', `/me/executor-instances/${seg(instanceId)}`, InstanceDeregisterResponseSchema, { body: {} });
  }

  // ---- offers and claims (E3, E4, E5) ----

  /** `waitMs` [v1] holds the read until an offer appears (the seed polls). */
  offers(instanceId: string, opts: { waitMs?: number; signal?: AbortSignal } = {}) {
    const wait = opts.waitMs && opts.waitMs > 0 ? Math.round(opts.waitMs) : 0;
    const path = `/me/executor-instances/${seg(instanceId)}/dispatch-offers${wait ? `?waitMs=${wait}` : ''}`;
    return this.call('GET', path, DispatchOffersSchema, {
      timeoutMs: REQUEST_TIMEOUT_MS + (wait ? wait + LONG_POLL_GRACE_MS : 0),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  /**
   * [v1] The instance's leases the Work Layer canceled, but those named in `canceling`; held
   * up to `waitMs` until there is one. A Work Layer without it answers 404.
   */
  leaseNotices(instanceId: string, opts: { waitMs: number; canceling: readonly string[]; signal?: AbortSignal }) {
    const wait = Math.max(0, Math.round(opts.waitMs));
    const canceling = opts.canceling.length ? `&canceling=${opts.canceling.map(encodeURIComponent).join(',')}` : '';
    return this.call('GET', `/me/executor-instances/${seg(instanceId)}/lease-notices?waitMs=${wait}${canceling}`, LeaseNoticesSchema, {
      timeoutMs: REQUEST_TIMEOUT_MS + wait + LONG_POLL_GRACE_MS,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  claimNext(instanceId: string, idempotencyKey: string) {
    return this.call('POST', `/me/executor-instances/${seg(instanceId)}/dispatch-offers/claim-next`, ClaimResultSchema, { body: { idempotencyKey } });
  }

  claimDirect(instanceId: string, generationId: string) {
    return this.call('POST', '/me/executor-task-claims', ClaimResultSchema, { body: { generationId, executorInstanceId: instanceId } });
  }

  // ---- the task (E6, E7) ----

  card(memoryId: string) {
    return this.call('GET', `/tasks/${seg(memoryId)}/card`, TaskCardSchema);
  }

  contextPack(slug: string, version: string) {
    return this.call('GET', `/bundles/${seg(slug)}/versions/${seg(version)}/package`, BundlePackageSchema);
  }

  // ---- the lease (E8, E9) ----

  /** `timeoutMs`: a lease request should not outlive the lease (the keeper passes the time left). */
  heartbeat(leaseId: string, claimToken: string, tokenVersion: number, opts: { timeoutMs?: number } = {}) {
    return this.call('POST', `/me/executor-task-leases/${seg(leaseId)}/heartbeat`, LeaseHeartbeatResponseSchema, {
      body: { claimToken, tokenVersion },
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    });
  }

  complete(leaseId: string, input: LeaseCompleteInput, opts: { timeoutMs?: number } = {}) {
    return this.call('POST', `/me/executor-task-leases/${seg(leaseId)}/complete`, LeaseCompleteResponseSchema, {
      body: input,
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    });
  }

  // ---- run telemetry (E11) ----

  /** Unlike the seed's `postTelemetry`, this goes through the same refresh-once path. [v1] */
  telemetry(decompositionId: string, events: RunTelemetryEvent[]) {
    return this.call('POST', `/decompositions/${seg(decompositionId)}/run/telemetry`, RunTelemetryIngestResponseSchema, { body: { events } });
  }

  // ---- the operator's verbs on briefs and work plans (B13) ----

  briefs(query: { status?: string; page?: number; pageSize?: number } = {}) {
    return this.call('GET', `/work-briefs${queryString(query)}`, WorkBriefListSchema);
  }

  decompositions(query: { status?: string; briefId?: string; page?: number; pageSize?: number } = {}) {
    return this.call('GET', `/decompositions${queryString(query)}`, DecompositionListSchema);
  }

  tasks(query: { decompositionId?: string; lane?: string; status?: string; page?: number; pageSize?: number } = {}) {
    return this.call('GET', `/work-tasks${queryString(query)}`, WorkTaskListSchema);
  }

  /** `work-brief pause|resume|cancel --reason-code --source [--reason]`. */
  briefLifecycle(briefId: string, action: 'pause' | 'resume' | 'cancel', input: { reasonCode: string; source: string; reason?: string | null }) {
    return this.call('POST', `/work-briefs/${seg(briefId)}/${action}`, BriefLifecycleResponseSchema, { body: input });
  }

  /** `work-brief park|unpark|supersede --source`. */
  briefStatus(briefId: string, to: (typeof BRIEF_STATUS_TARGETS)[number], source: string) {
    return this.call('POST', `/work-briefs/${seg(briefId)}/status`, BriefStatusResponseSchema, { body: { id: briefId, to, source } });
  }

  returnForRevision(decompositionId: string, notes: string) {
    return this.call('POST', `/decompositions/${seg(decompositionId)}/return-for-revision`, ReturnForRevisionResponseSchema, { body: { notes } });
  }

  /** `work-plan create <briefId>`. */
  decompose(briefId: string) {
    return this.call('POST', `/work-briefs/${seg(briefId)}/decompose`, DecomposeResponseSchema, { body: { id: briefId } });
  }

  /** `work-plan create-from-tasks <briefId> --file`. */
  decomposeFromPlan(briefId: string, input: DecomposeFromPlanInput) {
    return this.call('POST', `/work-briefs/${seg(briefId)}/decompose-from-plan`, DecomposeFromPlanResponseSchema, { body: input });
  }

  /** `work-plan append <id> --file`: the tasks land proposed until ratified. */
  appendTasks(decompositionId: string, input: AppendTasksInput) {
    return this.call('POST', `/decompositions/${seg(decompositionId)}/append-tasks`, AppendTasksResponseSchema, { body: input });
  }

  /** `work-plan resume <id>`: a failed plan runs again. */
  resumePlan(decompositionId: string) {
    return this.call('POST', `/decompositions/${seg(decompositionId)}/resume`, DecompositionResumeResponseSchema, { body: {} });
  }

  /** `work-plan accept <id>`: promote and ratify its tasks. */
  acceptPlan(decompositionId: string) {
    return this.call('POST', `/decompositions/${seg(decompositionId)}/accept`, DecompositionSchema, { body: {} });
  }

  /** `work-task residue-produce <taskId> --file`. */
  produceResidue(input: ProduceResidueInput) {
    return this.call('POST', '/work-tasks/produce-residue', ProduceResidueResponseSchema, { body: input });
  }

  /** `work-task mark-no-residue <taskId> --decomposition <wlp>`. */
  markNoResidue(taskId: string, decompositionId: string) {
    return this.call('POST', '/work-tasks/mark-no-residue', MarkNoResidueResponseSchema, { body: { taskId, decompositionId } });
  }

  private async call<T extends z.ZodType>(method: Method, path: string, schema: T, opts: CallOptions = {}): Promise<z.output<T>> {
    const token = await this.options.tokens.accessToken();
    let res;
    try {
      res = await this.send(method, path, token, opts);
    } catch (error) {
      if (!isConnectorError(error, 'unauthorized')) throw error;
      const fresh = await this.options.tokens.refreshAfter401(token);
      try {
        res = await this.send(method, path, fresh, opts);
      } catch (retryError) {
        if (isConnectorError(retryError, 'unauthorized')) {
          throw new AuthExpiredError(stillUnauthorizedMessage(method, path), this.options.tokens.kind === 'static' ? 'new_token' : 'sign_in');
        }
        throw retryError;
      }
    }
    if (res.status < 200 || res.status >= 300) {
      const error = this.http.rejected(path, res);
      throw new ConnectorError('rejected', `${method} ${path} failed (${res.status}${error.code ? ` ${error.code}` : ''})`, res.status, error.code);
    }
    // The seed's `response.json()` dies on an empty 2xx (B15.5): ours is a retryable fault.
    if (res.body === null) throw new ConnectorError('invalid_response', `${method} ${path}: the answer (${res.status}) is empty`, res.status);
    return this.http.parse(`${method} ${path}`, res, schema);
  }

  private send(method: Method, path: string, bearer: string, opts: CallOptions) {
    return this.http.request({
      method,
      path: `${this.basePath}${path}`,
      bearer,
      headers: this.headers,
      timeoutMs: opts.timeoutMs ?? REQUEST_TIMEOUT_MS,
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }
}

function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
