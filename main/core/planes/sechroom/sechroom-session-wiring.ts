import path from 'node:path';
import type { TurnView } from '../../../../shared/turns';
import type { ConnectorError } from '../../connectors/errors';
import { ExecutorSession, type SessionStatus } from './executor-session';
import { InflightJournal } from './inflight-journal';
import type { SechroomTokenSource } from './sechroom-auth';
import type { SechroomProfileConfig } from './sechroom-config';
import { SechroomOutbox } from './sechroom-outbox';
import type { SechroomPlumbing, SechroomSessionDeps } from './sechroom-session-deps';
import { turnViewOf } from './turn-records';
import { WorkLayerClient } from './work-layer-client';

/*
 * Assembling one run of a Sechroom profile's executor: the Work Layer client for the
 * profile's settings and credential, its durable outbox (loaded from the profile's folder
 * before the loop starts), its in-flight journal, and the executor session over the
 * plumbing the host made for those settings. The outbox tells the session each delivery
 * and asks it each lease's time left; what the run reports goes to `hooks`.
 */

/** What the profile's executor hears of one run. */
export interface ExecutorRunHooks {
  state(status: SessionStatus): void;
  turn(turn: TurnView): void;
  /** The outbox's bearer was refused for good: its delivery waits for a new sign-in. */
  authExpired(error: ConnectorError): void;
  /** The outbox's count changed. */
  outboxChanged(): void;
}

/** A run as it was built: its loop (not started) and its outbox. */
export interface ExecutorRun {
  session: ExecutorSession;
  outbox: SechroomOutbox;
  client: WorkLayerClient;
}

export interface ExecutorRunOptions {
  config: SechroomProfileConfig;
  tokens: SechroomTokenSource;
  plumbing: SechroomPlumbing;
  /** `--once`: the loop ends after its first claimed task. */
  once: boolean;
}

export async function buildExecutorRun(deps: SechroomSessionDeps, options: ExecutorRunOptions, hooks: ExecutorRunHooks): Promise<ExecutorRun> {
  const { config, tokens, plumbing, once } = options;
  const client = new WorkLayerClient({
    baseUrl: config.baseUrl,
    tenant: config.tenant,
    tokens,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    knownSecrets: deps.knownSecrets,
  });
  const random = deps.random ? { random: deps.random } : {};
  let session: ExecutorSession | null = null;
  const outbox = new SechroomOutbox({
    dir: path.join(deps.dir, 'outbox'),
    client,
    clock: deps.clock,
    log: deps.log,
    ...random,
    onDelivered: (delivery) => session?.delivered(delivery),
    leaseTimeLeftMs: (leaseId) => session?.leaseTimeLeftMs(leaseId) ?? null,
    onAuthExpired: (error) => hooks.authExpired(error),
    onChange: () => hooks.outboxChanged(),
  });
  await outbox.load();
  const { turns, admission, root, storage, workspace, machine } = plumbing;
  session = new ExecutorSession({
    settings: config.instance,
    client,
    turns,
    outbox,
    clock: deps.clock,
    log: deps.log,
    journal: new InflightJournal(path.join(deps.dir, 'inflight')),
    // The workspace, root, storage, admission and machine ports the host made for this profile.
    ...(admission ? { admission } : {}),
    ...(root ? { root } : {}),
    ...(storage ? { storage } : {}),
    ...(workspace ? { workspace } : {}),
    ...(machine ? { machine } : {}),
    ...(once ? { once: true } : {}),
    ...(deps.offerWaitMs ? { offerWaitMs: deps.offerWaitMs } : {}),
    ...random,
    onTurn: (record) => hooks.turn(turnViewOf(record)),
    onState: (state) => hooks.state(state),
  });
  return { session, outbox, client };
}
