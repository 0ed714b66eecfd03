import type {
  CancelNotice,
  ClaimedUnit,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaseHeartbeatResponse,
  PairingClaimByCode,
  PairingClaimResponse,
  PairingStartRequest,
  PairingStartResponse,
  PlaneLane,
  ResultRequest,
  UnitKind,
} from '../../../../shared/protocol';
import type { DynamicToolSet } from '../../exec/codex-app-server/dynamic-tools';

/** The runner's credentials; the secret lives in the SecretStore and only passes through here. */
export interface RunnerCredentials {
  runnerId: string;
  secret: string;
}

export type PairingPoll =
  | { kind: 'approved'; credentials: PairingClaimResponse }
  | { kind: 'pending' }
  | { kind: 'slow_down'; intervalSeconds?: number }
  | { kind: 'denied' }
  | { kind: 'expired' };

export interface ClaimOptions {
  interactiveOnly: boolean;
  /** Long-poll: only when the server advertised it. */
  waitMs?: number;
  /** The runtimes this runner can run now (`runtimeReadiness`); the server may ignore it. [v1] */
  runtimes?: readonly ('claude' | 'codex')[];
  /** The heartbeat carried on a long-poll claim, with the taker of its answer: only when the server advertised it. [v1] */
  heartbeat?: { body: HeartbeatRequest; answered(response: HeartbeatResponse): void };
  /**
   * Cancel notices on the held claim, with their taker: only when the server advertised them.
   * `only`: a read held for notices alone (every slot busy), which takes no unit; `canceling`:
   * the units whose cancel was heard already (not told again). [v1]
   */
  notices?: { only: boolean; canceling: readonly string[]; heard(cancels: readonly CancelNotice[]): void };
  signal?: AbortSignal;
}

export type ClaimedWork = ClaimedUnit & { kind: UnitKind };

export type ResultDelivery = 'accepted' | 'already_recorded';

/**
 * Everything the runner loop needs from a control plane, in its own words. Rost is the
 * first implementation; the loop has no Rost paths in it.
 */
export interface RunnerConnector {
  readonly origin: string;
  startPairing(request: PairingStartRequest): Promise<PairingStartResponse>;
  pollPairing(pairingId: string): Promise<PairingPoll>;
  /** Claim with a user code an operator got elsewhere (`--user-code`, `runner.pairing.start`). */
  pollPairingByCode(claim: PairingClaimByCode): Promise<PairingPoll>;
  unpair(credentials: RunnerCredentials): Promise<void>;
  heartbeat(credentials: RunnerCredentials, body: HeartbeatRequest): Promise<HeartbeatResponse>;
  claim(credentials: RunnerCredentials, options: ClaimOptions): Promise<ClaimedWork | null>;
  start(credentials: RunnerCredentials, unit: { id: string; kind: UnitKind }): Promise<void>;
  /** `null` when the server has no lease heartbeat endpoint (a seed-era server). */
  /** `timeoutMs`: the most the beat may wait (no longer than the lease has left). */
  leaseHeartbeat(
    credentials: RunnerCredentials,
    unit: { id: string; kind: UnitKind },
    body: { elapsed_ms: number },
    opts?: { timeoutMs?: number },
  ): Promise<LeaseHeartbeatResponse | null>;
  report(credentials: RunnerCredentials, unit: { id: string; kind: UnitKind }, result: ResultRequest): Promise<ResultDelivery>;
  /** [v1] The lanes the plane would hand this runner (`--dry-run`); null when it lists none (404). */
  lanes?(credentials: RunnerCredentials): Promise<readonly PlaneLane[] | null>;
  /**
   * Tools this control plane lends the model for one unit when codex runs through its
   * app-server (dynamic tools, e.g. Sechroom's closeout and lifecycle signal), with the
   * thread's developer instructions. Absent or null: none (Rost's come through its MCP server).
   */
  unitTools?(credentials: RunnerCredentials, unit: ClaimedWork): { tools: DynamicToolSet; developerInstructions?: string | null } | null;
}
