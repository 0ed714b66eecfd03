import type { HeartbeatRequest } from '../../../../shared/protocol';
import type { CapacitySample } from '../../../../shared/telemetry';
import { capabilitiesForRuntime, type Capabilities, type RuntimeCapability, type RuntimePreference, type TrippedRuntimes } from '../../runner/capabilities';

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
  const allowed = capabilitiesForRuntime(inputs.capabilities, inputs.runtime, inputs.tripped);
  const runtimes = (['claude', 'codex'] as const).filter((r) => allowed[r].installed);
  // The seed's capability shape, as it was; how each runtime is isolated goes in the telemetry [v1].
  const capabilities = {
    claude: seedCapability(allowed.claude),
    codex: seedCapability(allowed.codex),
  };
  const isolation: Partial<Record<'claude' | 'codex', string>> = {};
  for (const r of runtimes) {
    const level = allowed[r].isolation;
    if (level) isolation[r] = level;
  }
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
      ...(Object.keys(isolation).length > 0 ? { isolation } : {}),
      model_account: { alias: inputs.modelAccount.alias.trim() || 'default', state: inputs.modelAccount.state || 'unknown' },
    },
  };
}

function seedCapability(c: RuntimeCapability): RuntimeCapability {
  return { installed: c.installed, ...(c.version ? { version: c.version } : {}), ...(c.path ? { path: c.path } : {}) };
}
