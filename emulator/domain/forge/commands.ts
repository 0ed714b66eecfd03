import { ZodError } from 'zod';
import { FORGE_COMMANDS, LIFECYCLE_COMMAND_IDS, type ForgeCommandId, type LifecycleCommandId } from '../../../shared/protocol';
import { HttpError, describeZodError, json, type Reply } from '../../http/reply';
import type { OperatorRecord } from '../identity';
import type { RunnerService } from '../runners';
import type { ConfirmationService } from './confirmations';
import type { ForgeStore } from './forge-store';
import type { ForgeLifecycle } from './lifecycle';

const isLifecycle = (id: string): id is LifecycleCommandId => (LIFECYCLE_COMMAND_IDS as readonly string[]).includes(id);

/** `POST /api/commands/{command_id}` for an authenticated operator. */
export class ForgeCommands {
  constructor(
    private readonly store: ForgeStore,
    private readonly lifecycle: ForgeLifecycle,
    private readonly confirmations: ConfirmationService,
    private readonly runners: RunnerService,
  ) {}

  execute(operator: OperatorRecord, commandId: string, rawInput: unknown): Reply {
    if (!Object.prototype.hasOwnProperty.call(FORGE_COMMANDS, commandId)) {
      throw new HttpError(404, 'unknown_command', `no command ${commandId}`);
    }
    const id = commandId as ForgeCommandId;
    const spec = FORGE_COMMANDS[id];
    if (spec.scope === 'tenant_admin' && operator.role !== 'tenant_admin') {
      throw new HttpError(403, 'forbidden', `${id} requires the tenant_admin role (you are ${operator.role})`);
    }
    let input: Record<string, unknown>;
    try {
      input = spec.input.parse(rawInput ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ZodError) throw new HttpError(400, 'invalid_request', describeZodError(error, 'input', 'input'));
      throw error;
    }
    if (isLifecycle(id)) {
      this.store.show(input.build_request_id as string, operator.tenant_id); // 404 before a handoff for a request that is not there
      if (this.confirmations.enabled) return json(202, this.confirmations.create(operator, id, input));
      return json(200, { output: this.lifecycle.run(id, { operator_id: operator.id, tenant_id: operator.tenant_id }, input as never) });
    }
    return json(200, { output: this.read(id, operator, input) });
  }

  private read(id: ForgeCommandId, operator: OperatorRecord, input: Record<string, unknown>): unknown {
    switch (id) {
      case 'software_factory.request.list':
        return { requests: this.store.list(operator.tenant_id, (input.limit as number | undefined) ?? 50) };
      case 'software_factory.request.show':
        return this.store.show(input.build_request_id as string, operator.tenant_id);
      case 'software_factory.capacity.list':
        return {
          observations: this.runners.observations({ tenant_id: operator.tenant_id, runner_id: input.runner_id as string | undefined }),
        };
      default:
        throw new HttpError(404, 'unknown_command', `no command ${id}`);
    }
  }
}
