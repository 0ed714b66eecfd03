import type { HeartbeatRequest } from '../../../shared/protocol';
import type { CapacitySample } from '../../../shared/telemetry';
import { capabilitiesForRuntime, type Capabilities, type RuntimePreference, type TrippedRuntimes } from './capabilities';

export interface HeartbeatInputs {
  name: string;
  runnerVersion: string;
  paused: boolean;
  runtime: RuntimePreference;
  capabilities: Capabilities;
  /** Runtimes the circuit breaker paused: advertised as not installed, like signed-out ones. */
  tripped?: TrippedRuntimes;
  os: { platform: string; release: string; arch: string };
  cpuCount: number;
  sample: CapacitySample | null;
  activeSessions: number;
  maxSessions: number;
  modelAccount: { alias: string; state: string };
}

/** The heartbeat body of protocol §2, from what the runner already knows (no I/O here). */
export function buildHeartbeat(inputs: HeartbeatInputs): HeartbeatRequest {
  const capabilities = capabilitiesForRuntime(inputs.capabilities, inputs.runtime, inputs.tripped);
  const runtimes = (['claude', 'codex'] as const).filter((r) => capabilities[r].installed);
  return {
    name: inputs.name,
    runner_version: inputs.runnerVersion,
    paused: inputs.paused,
    capabilities,
    telemetry: {
      os: inputs.os,
      runner_version: inputs.runnerVersion,
      cpu: { count: inputs.cpuCount, ...(inputs.sample ? { load_percent: inputs.sample.cpuPercent } : {}) },
      ...(inputs.sample
        ? { memory: { total_bytes: inputs.sample.memTotalBytes, free_bytes: inputs.sample.memFreeBytes, process_rss_bytes: inputs.sample.rssBytes } }
        : {}),
      active_sessions: inputs.activeSessions,
      max_sessions: inputs.maxSessions,
      runtimes,
      model_account: { alias: inputs.modelAccount.alias.trim() || 'default', state: inputs.modelAccount.state || 'unknown' },
    },
  };
}
