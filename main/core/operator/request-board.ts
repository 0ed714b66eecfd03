// Forge's build requests as the operator's Requests view asks for them: the board, one
// request, its lifecycle commands (pause, resume, cancel) and their human confirmations.
import {
  isHttpUrl,
  type CapacityView,
  parseReason,
  type ConfirmationView,
  type LifecycleAction,
  type LifecycleOutcome,
  type RequestBoard,
  type RequestDetailView,
  type ResumeBound,
} from '../../../shared/operator';
import type { LifecycleCommandId } from '../../../shared/protocol';
import type { TurnsSnapshot } from '../../../shared/turns';
import { CommandFailure } from '../base/dispatch';
import type { Logger } from '../base/ports';
import type { ForgeClient } from './forge-client';
import { OperatorErrorCode } from './operator-errors';
import { boardView, capacityView, confirmationView, detailView, lifecycleResultView } from './request-views';

const BOARD_LIMIT = 200;

const LIFECYCLE_COMMANDS: Record<LifecycleAction, LifecycleCommandId> = {
  pause: 'software_factory.request.pause',
  resume: 'software_factory.request.resume',
  cancel: 'software_factory.request.cancel',
};

export interface RequestBoardDeps {
  /** A Forge call with the operator's token (every failure one readable line). */
  call<T>(fn: (forge: ForgeClient, token: string) => Promise<T>): Promise<T>;
  turns(): TurnsSnapshot;
  now(): number;
  log: Logger;
  /** A refusal for the role: the role may have changed on the server. */
  roleMayHaveChanged(): void;
}

export class RequestBoardCalls {
  constructor(private readonly deps: RequestBoardDeps) {}

  async list(limit = BOARD_LIMIT): Promise<RequestBoard> {
    const answer = await this.deps.call((forge, token) => forge.command('software_factory.request.list', { limit }, token));
    if (answer.kind !== 'output') throw unexpectedHandoff();
    return boardView(answer.output, this.deps.turns(), this.deps.now());
  }

  async show(id: string): Promise<RequestDetailView> {
    const answer = await this.deps.call((forge, token) => forge.command('software_factory.request.show', { build_request_id: id }, token));
    if (answer.kind !== 'output') throw unexpectedHandoff();
    return detailView(answer.output, this.deps.turns(), this.deps.now());
  }

  /** `bound` (resume only): the ceilings raised with it, sent as `termination_bound` [v1]. */
  async lifecycle(action: LifecycleAction, id: string, rawReason: string | undefined, bound?: ResumeBound): Promise<LifecycleOutcome> {
    const reason = parseReason(rawReason);
    if (!reason.ok) throw new CommandFailure(OperatorErrorCode.invalidReason, reason.message, 'reason');
    const commandId = LIFECYCLE_COMMANDS[action];
    const termination = action === 'resume' && bound ? { termination_bound: wireBound(bound) } : {};
    const input = { build_request_id: id, ...(reason.value ? { reason: reason.value } : {}), ...termination };
    let answer;
    try {
      answer = await this.deps.call((forge, token) => forge.command(commandId, input, token));
    } catch (error) {
      // A refusal for the role may mean the role changed on the server: learn it.
      if (error instanceof CommandFailure && error.code === OperatorErrorCode.forbidden) this.deps.roleMayHaveChanged();
      this.deps.log.info('request lifecycle command refused', { action, request: id, code: error instanceof CommandFailure ? error.code : 'error' });
      throw error;
    }
    if (answer.kind === 'handoff') {
      const { id: confirmationId, url, expires_at } = answer.handoff.confirmation;
      if (!isHttpUrl(url))
        throw new CommandFailure(
          OperatorErrorCode.badAnswer,
          'The control plane asked for a confirmation at an address that is not http(s). Confirm on the control plane itself.',
        );
      this.deps.log.info('request lifecycle command needs a human confirmation', { action, request: id, confirmation: confirmationId });
      return { kind: 'confirmation_required', confirmationId, url, expiresAt: expires_at };
    }
    this.deps.log.info('request lifecycle command done', { action, request: id, status: answer.output.status });
    return { kind: 'done', result: lifecycleResultView(answer.output) };
  }

  /** The tenant's runner capacity (read-only): the newest observation of each runner. */
  async capacity(): Promise<CapacityView> {
    const answer = await this.deps.call((forge, token) => forge.command('software_factory.capacity.list', {}, token));
    if (answer.kind !== 'output') throw unexpectedHandoff();
    return capacityView(answer.output);
  }

  async confirmation(id: string): Promise<ConfirmationView> {
    return confirmationView(await this.deps.call((forge, token) => forge.confirmation(id, token)));
  }
}

function wireBound(bound: ResumeBound): Record<string, number | string> {
  return {
    ...(bound.maxIterations !== undefined ? { max_iterations: bound.maxIterations } : {}),
    ...(bound.maxWallClockSeconds !== undefined ? { max_wall_clock_seconds: bound.maxWallClockSeconds } : {}),
    ...(bound.costBudgetUsd !== undefined ? { cost_budget_usd: bound.costBudgetUsd } : {}),
  };
}

function unexpectedHandoff(): CommandFailure {
  return new CommandFailure(OperatorErrorCode.badAnswer, 'The control plane asked for a confirmation on a read. Try again later.');
}
