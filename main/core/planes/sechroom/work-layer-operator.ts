import { z } from 'zod';
import { errorText } from '../../../../shared/errors';
import type { WorkTask } from '../../../../shared/protocol/sechroom';
import { REASONED_ACTIONS, type WorkActionOutcome, type WorkBoard, type WorkBriefAction, type WorkTaskView } from '../../../../shared/work-layer';
import { isConnectorError } from '../../connectors/errors';
import type { FetchLike } from '../../connectors/http-json';
import { AuthExpiredError, StaticTokenSource, type SechroomTokenSource } from './sechroom-auth';
import { WorkLayerClient } from './work-layer-client';
import { CommandFailure } from '../../base/dispatch';
import type { Logger } from '../../base/ports';

/** Where the operator's Work view reads and acts: a Work Layer base URL, its tenant, and a bearer. */
export interface WorkLayerAccess {
  baseUrl: string;
  tenant: string;
  tokens: SechroomTokenSource;
}

/**
 * A Work Layer of the host itself, for the Work view while a Rost profile is shown (a
 * Sechroom profile shows its own): `RUNNER_TRAY_SECHROOM_URL` (the Work Layer base URL, e.g.
 * the emulator's `/sechroom`), `RUNNER_TRAY_SECHROOM_TENANT`, and the seed's `SECHROOM_TOKEN`.
 */
const EnvSchema = z.object({
  RUNNER_TRAY_SECHROOM_URL: z.url({ protocol: /^https?$/, error: 'RUNNER_TRAY_SECHROOM_URL must be an http(s) address' }),
  RUNNER_TRAY_SECHROOM_TENANT: z.string({ error: 'RUNNER_TRAY_SECHROOM_TENANT is required' }).trim().min(1, 'RUNNER_TRAY_SECHROOM_TENANT is required'),
  SECHROOM_TOKEN: z.string({ error: 'SECHROOM_TOKEN is required' }).trim().min(1, 'SECHROOM_TOKEN is required'),
});

export const WORK_LAYER_NOT_SET =
  'No Sechroom Work Layer is set up. Set RUNNER_TRAY_SECHROOM_URL, RUNNER_TRAY_SECHROOM_TENANT and SECHROOM_TOKEN for the host to show its work here.';

export function workLayerAccessFromEnv(env: NodeJS.ProcessEnv): { ok: true; access: WorkLayerAccess } | { ok: false; message: string } {
  if (!env.RUNNER_TRAY_SECHROOM_URL && !env.SECHROOM_TOKEN) return { ok: false, message: WORK_LAYER_NOT_SET };
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) return { ok: false, message: `The Sechroom Work Layer is not usable: ${parsed.error.issues.map((i) => i.message).join('; ')}.` };
  const e = parsed.data;
  return { ok: true, access: { baseUrl: e.RUNNER_TRAY_SECHROOM_URL, tenant: e.RUNNER_TRAY_SECHROOM_TENANT, tokens: new StaticTokenSource(e.SECHROOM_TOKEN) } };
}

export interface WorkLayerOperatorDeps {
  access: { ok: true; access: WorkLayerAccess } | { ok: false; message: string };
  log: Logger;
  fetch?: FetchLike;
  knownSecrets(): readonly string[];
}

const SOURCE = 'runner-tray';
const BRIEFS = 50;
const PAGE = 200;

const DONE: Record<WorkBriefAction, string> = {
  pause: 'Paused: the brief offers no new tasks; running leases go on.',
  resume: 'Resumed: the brief offers its tasks again.',
  cancel: 'Canceled for good: its running leases ended and its open tasks and plans are canceled.',
  park: 'Parked: the brief offers no new tasks until it is unparked; running leases go on.',
  unpark: 'Unparked: the brief is ready for work again.',
  supersede: 'Superseded for good: it offers nothing, and its running leases are asked to stop.',
};

/** The operator's Work view on one Work Layer: the board, and each lifecycle verb as the Work Layer takes it. */
export class WorkLayerOperator {
  private readonly client: WorkLayerClient | null;

  constructor(private readonly deps: WorkLayerOperatorDeps) {
    this.client = deps.access.ok
      ? new WorkLayerClient({
          baseUrl: deps.access.access.baseUrl,
          tenant: deps.access.access.tenant,
          tokens: deps.access.access.tokens,
          ...(deps.fetch ? { fetch: deps.fetch } : {}),
          knownSecrets: deps.knownSecrets,
        })
      : null;
  }

  async board(): Promise<WorkBoard> {
    if (!this.client) return { state: 'not_configured', message: this.deps.access.ok ? WORK_LAYER_NOT_SET : this.deps.access.message };
    const client = this.client;
    const [briefs, plans, tasks] = await this.ask(() =>
      Promise.all([client.briefs({ pageSize: BRIEFS }), client.decompositions({ pageSize: PAGE }), client.tasks({ pageSize: PAGE })]),
    );
    const tasksOf = new Map<string, WorkTaskView[]>();
    for (const task of tasks.items) tasksOf.set(task.decompositionId, [...(tasksOf.get(task.decompositionId) ?? []), taskView(task)]);
    return {
      state: 'ready',
      baseUrl: client.baseUrl,
      briefs: briefs.items.map((b) => ({
        id: b.id,
        title: b.title,
        status: b.status,
        reasonCode: b.reasonCode ?? null,
        reason: b.reason ?? null,
        source: b.source ?? null,
        updatedAt: b.updatedAt,
        plans: plans.items
          .filter((p) => p.briefId === b.id)
          .map((p) => ({
            id: p.id,
            title: p.title,
            status: p.status,
            taskCount: p.taskCount,
            revisionOf: p.revisionOf ?? null,
            revisionNotes: p.revisionNotes ?? null,
            updatedAt: p.updatedAt,
            tasks: tasksOf.get(p.id) ?? [],
          })),
      })),
      more: {
        briefs: Math.max(0, briefs.count - briefs.items.length),
        plans: Math.max(0, plans.count - plans.items.length),
        tasks: Math.max(0, tasks.count - tasks.items.length),
      },
    };
  }

  async briefAction(input: {
    briefId: string;
    action: WorkBriefAction;
    reasonCode?: string | undefined;
    reason?: string | undefined;
  }): Promise<WorkActionOutcome> {
    const client = this.require();
    const { briefId, action } = input;
    if (REASONED_ACTIONS.includes(action)) {
      const verb = action as 'pause' | 'resume' | 'cancel';
      const answer = await this.ask(() =>
        client.briefLifecycle(briefId, verb, { reasonCode: input.reasonCode!, source: SOURCE, ...(input.reason ? { reason: input.reason } : {}) }),
      );
      this.deps.log.info('work brief lifecycle', { briefId, action, changed: answer.changed });
      return {
        changed: answer.changed,
        message: answer.changed ? DONE[action] : `Nothing changed: the brief was already ${answer.status.replaceAll('_', ' ')}.`,
      };
    }
    const to = action === 'park' ? 'status:parked' : action === 'unpark' ? 'status:ready_for_decomposition' : 'status:superseded';
    const answer = await this.ask(() => client.briefStatus(briefId, to, SOURCE));
    this.deps.log.info('work brief status', { briefId, action, changed: answer.changed });
    return {
      changed: answer.changed,
      message: answer.changed ? DONE[action] : `Nothing changed: the brief was already ${answer.status.replaceAll('_', ' ')}.`,
    };
  }

  async returnForRevision(input: { decompositionId: string; notes: string }): Promise<WorkActionOutcome> {
    const client = this.require();
    const answer = await this.ask(() => client.returnForRevision(input.decompositionId, input.notes));
    this.deps.log.info('work plan returned for revision', { decompositionId: input.decompositionId, successor: answer.newSuggestionId });
    return {
      changed: true,
      message: `Returned for revision: the plan offers no new tasks, and a new pending plan (${answer.newSuggestionId}) holds its unfinished tasks with your notes.`,
    };
  }

  private require(): WorkLayerClient {
    if (!this.client) throw new CommandFailure('not_configured', this.deps.access.ok ? WORK_LAYER_NOT_SET : this.deps.access.message);
    return this.client;
  }

  /** A Work Layer call; what went wrong becomes one line the operator can act on. */
  private async ask<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw explain(error);
    }
  }
}

function taskView(t: WorkTask): WorkTaskView {
  return {
    memoryId: t.memoryId,
    title: t.title,
    status: t.status,
    laneId: t.laneId,
    verdict: t.verdict,
    leaseHolder: t.lease ? (t.lease.instanceKey ?? t.lease.executorInstanceId) : null,
    leaseExpiresAt: t.lease?.expiresAt ?? null,
    cancelRequested: t.lease?.cancelRequested ?? false,
    lastCompletion: t.lastCompletion
      ? { verdict: t.lastCompletion.verdict, title: t.lastCompletion.title, source: t.lastCompletion.source, receivedAt: t.lastCompletion.receivedAt }
      : null,
  };
}

function explain(error: unknown): CommandFailure {
  if (error instanceof AuthExpiredError) return new CommandFailure('sign_in_again', error.message);
  if (isConnectorError(error, 'not_found'))
    return new CommandFailure('not_found', 'The Work Layer does not know that brief or plan (any more). Refresh the list.');
  if (isConnectorError(error, 'rejected')) {
    if (error.code === 'invalid_transition')
      return new CommandFailure('invalid_transition', 'The Work Layer refused: its state changed and no longer allows this. Refresh the list and try again.');
    return new CommandFailure('refused', `The Work Layer refused this (${error.status ?? '?'}${error.code ? ` ${error.code}` : ''}).`);
  }
  return new CommandFailure('unreachable', `Could not reach the Work Layer: ${errorText(error)}`);
}
