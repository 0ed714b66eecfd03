import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../../emulator/index';
import type { FetchLike } from '../../../../main/core/connectors/http-json';
import { ExecutorSession, type ExecutorSessionDeps, type SechroomTurnRecord, type SessionStatus } from '../../../../main/core/planes/sechroom/executor-session';
import { checkInstanceSettings, type InstanceSettings, type InstanceSettingsInput } from '../../../../shared/sechroom-instance-settings';
import { StaticTokenSource, type SechroomTokenSource } from '../../../../main/core/planes/sechroom/sechroom-auth';
import { SechroomOutbox } from '../../../../main/core/planes/sechroom/sechroom-outbox';
import type { SechroomTurnRunner, TurnOutcome, TurnRequest } from '../../../../main/core/planes/sechroom/turn-runner';
import { WorkLayerClient } from '../../../../main/core/planes/sechroom/work-layer-client';
import type { SecretStore } from '../../../../main/core/secrets/secret-store';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

export class MemoryStore implements SecretStore {
  readonly backend = 'file' as const;
  readonly entries = new Map<string, string>();
  async get(account: string) {
    return this.entries.get(account) ?? null;
  }
  async set(account: string, secret: string) {
    this.entries.set(account, secret);
  }
  async delete(account: string) {
    return this.entries.delete(account);
  }
}

/** A turn the test scripts: it gets the request (tools, signal) and answers an outcome. */
export type ScriptedTurn = (request: TurnRequest) => Promise<TurnOutcome> | TurnOutcome;

export class ScriptedTurnRunner implements SechroomTurnRunner {
  readonly requests: TurnRequest[] = [];
  constructor(public script: ScriptedTurn) {}
  run(request: TurnRequest): Promise<TurnOutcome> {
    this.requests.push(request);
    return Promise.resolve(this.script(request));
  }
}

/** A turn that closes out with `terminal_status` and completes. */
export const closingTurn =
  (terminalStatus: string, summary = 'did the work', evidence: string[] = ['tests pass']): ScriptedTurn =>
  (req) => {
    req.tools.call('sechroom_lifecycle_signal', { phase: 'work', status: 'started', summary: 'working' });
    req.tools.call('sechroom_closeout', { terminal_status: terminalStatus, summary, evidence });
    req.onUsage?.({ tokensIn: 1200, tokensOut: 300, contextUsed: 1500, contextWindow: 200_000, modelId: 'gpt-test' });
    return { status: 'completed', lastAgentMessage: 'all done', usage: null, turnId: 'turn_1' };
  };

/** A fetch that can hold requests whose URL matches until the test lets them go. */
export function gatedFetch() {
  const gates: Array<{ match: RegExp; release: Promise<void>; open: () => void; entered: () => void; hit: Promise<void> }> = [];
  const fetchImpl: FetchLike = async (input, init) => {
    const gate = gates.find((g) => g.match.test(input));
    if (gate) {
      gates.splice(gates.indexOf(gate), 1);
      gate.entered();
      await gate.release;
    }
    return fetch(input, init);
  };
  const hold = (match: RegExp) => {
    let open!: () => void;
    let entered!: () => void;
    const release = new Promise<void>((r) => (open = r));
    const hit = new Promise<void>((r) => (entered = r));
    gates.push({ match, release, open, entered, hit });
    return { open, hit };
  };
  return { fetch: fetchImpl, hold };
}

export interface Rig {
  emu: RunningEmulator;
  clock: FakeClock;
  tenant: string;
  token: string;
  tmp: string;
  logs: ReturnType<typeof testLogging>;
  client(opts?: { tokens?: SechroomTokenSource; fetch?: FetchLike }): WorkLayerClient;
  settings(patch?: Partial<InstanceSettingsInput>): InstanceSettings;
  /** A session with a fresh outbox in `outboxDir` (default: the rig's). */
  session(
    opts: { turns: SechroomTurnRunner; settings?: Partial<InstanceSettingsInput>; outboxDir?: string; fetch?: FetchLike } & Partial<
      Omit<ExecutorSessionDeps, 'settings' | 'turns' | 'outbox' | 'client'>
    >,
  ): Promise<{
    session: ExecutorSession;
    outbox: SechroomOutbox;
    records: SechroomTurnRecord[];
    states: SessionStatus[];
  }>;
  /** Resolves when a log line matches. */
  logged(pattern: RegExp): Promise<string>;
  /**
   * Until `until()` holds: lets real I/O and due timers run, and moves the fake clock
   * `stepMs` only when `canAdvance()` (default: the last session waits on the clock and no
   * request is in flight), so time never runs on under an answer or a file write.
   */
  pump(until: () => boolean, stepMs?: number, canAdvance?: () => boolean): Promise<void>;
  inflight(): number;
  /** The fetch the rig's clients use: its requests count in `inflight()`. */
  fetch: FetchLike;
  close(): Promise<void>;
}

/** The Sechroom emulator on port 0 on the rig's fake clock (so lease and token expiry follow it), and a minted bearer. */
export async function rig(opts: { random?: () => number; tokenTtlMs?: number } = {}): Promise<Rig> {
  const clock = new FakeClock(Date.now());
  // `random` drives the emulator's fault rates (a seeded one makes a fault run repeatable).
  const emu = await startEmulator({ sweepIntervalMs: 0, now: () => clock.now(), ...(opts.random ? { random: opts.random } : {}) });
  const minted = emu.sechroom.mintToken(opts.tokenTtlMs ? { ttl_ms: opts.tokenTtlMs } : {});
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sechroom-conn-'));
  const logs = testLogging();
  // Requests in flight: the pump never moves the clock under one (a loopback answer takes real event-loop turns).
  let inflight = 0;
  const counted =
    (inner: FetchLike): FetchLike =>
    async (input, init) => {
      inflight++;
      try {
        return await inner(input, init);
      } finally {
        inflight--;
      }
    };
  const client: Rig['client'] = (opts = {}) =>
    new WorkLayerClient({
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      tokens: opts.tokens ?? new StaticTokenSource(minted.access_token),
      fetch: counted(opts.fetch ?? ((input, init) => fetch(input, init))),
    });
  const settings: Rig['settings'] = (patch = {}) => {
    const checked = checkInstanceSettings({ instanceKey: 'codex-a', root: tmp, ...patch });
    if (!checked.ok) throw new Error(checked.message);
    return checked.settings;
  };
  let last: ExecutorSession | null = null;
  const logged = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const found = logs.entries.find((e) => pattern.test(e.msg));
      if (found) return resolve(found.msg);
      const off = logs.feed.subscribe((e) => {
        if (pattern.test(e.msg)) {
          off();
          resolve(e.msg);
        }
      });
    });
  return {
    emu,
    clock,
    tenant: minted.tenant,
    token: minted.access_token,
    tmp,
    logs,
    client,
    settings,
    logged,
    inflight: () => inflight,
    fetch: counted((input, init) => fetch(input, init)),
    async pump(until, stepMs = 1_000, canAdvance = () => inflight === 0 && (last?.idle ?? false)) {
      const from = clock.now();
      for (let i = 0; !until(); i++) {
        if (i > 200_000) {
          // What the failure needs to be read: how far the clock ran, and what the code said last.
          const said = logs.entries.slice(-8).map((e) => `  ${e.level} ${e.msg}`);
          throw new Error(`pump: the condition never held (the clock ran ${Math.round((clock.now() - from) / 1000)} s); last lines:\n${said.join('\n')}`);
        }
        await new Promise((resolve) => setImmediate(resolve));
        await clock.settle();
        if (!until() && canAdvance()) await clock.advanceAsync(stepMs);
      }
    },
    async session(opts) {
      const records: SechroomTurnRecord[] = [];
      const states: SessionStatus[] = [];
      const c = client(opts.fetch ? { fetch: opts.fetch } : {});
      let session: ExecutorSession | null = null;
      const outbox = new SechroomOutbox({
        dir: opts.outboxDir ?? path.join(tmp, 'outbox'),
        client: c,
        clock,
        log: logs.log,
        random: () => 0.5,
        onDelivered: (d) => session?.delivered(d),
        leaseTimeLeftMs: (leaseId) => session?.leaseTimeLeftMs(leaseId) ?? null,
      });
      await outbox.load();
      const { turns, settings: patch, outboxDir: _dir, fetch: _fetch, ...rest } = opts;
      session = new ExecutorSession({
        settings: settings(patch),
        client: c,
        turns,
        outbox,
        clock,
        log: logs.log,
        random: () => 0.5,
        onTurn: (r) => records.push(r),
        onState: (s) => states.push(s),
        ...rest,
      });
      last = session;
      return { session, outbox, records, states };
    },
    async close() {
      await emu.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
