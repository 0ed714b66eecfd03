/**
 * The first phase of a unit's run, before the start call: the context packet checked, the runtime chosen
 * (the unit's brain, the profile's preference, what is ready, admitted and not tripped), and the plan built
 * from them (binary, resume id, MCP address, prompt), or the failure to report once the start is taken.
 */
import { unitMcpUrl } from '../../../../shared/transport-security';
import type { ClaimedWork } from './connector';
import { cannotRunMessage, chooseRuntime } from '../../runner/capabilities';
import { readyRuntimes } from '../../runner/runtime-readiness';
import { admittedCapabilities } from '../../work/claim-admission';
import { composePrompt, type checkContextPacket } from '../../work/prompt';
import { resumeKey } from './resume-cache';
import { failedUnit, type UnitRunResult } from './unit-result';
import type { UnitRunDeps } from './unit-run-deps';

export type Plan =
  | { ok: false; failure: UnitRunResult }
  | {
      ok: true;
      runtime: 'claude' | 'codex';
      binary: string;
      key: string | null;
      resume: string | null;
      mcp: { serverUrl: string; token: string } | null;
      prompt: string;
    };

/** The runtime for the unit, or why none can run it. */
export function chooseFor(deps: UnitRunDeps, unit: ClaimedWork): ReturnType<typeof chooseRuntime> {
  const brain = brainOf(unit.brain);
  // A unit without a brain of its own goes to a runtime whose account is not deferred.
  const choosable =
    brain === 'auto' && deps.runtimePreference === 'auto' && deps.admits ? admittedCapabilities(deps.capabilities, deps.admits) : deps.capabilities;
  const ready = readyRuntimes({ capabilities: choosable, preference: deps.runtimePreference, tripped: deps.tripped });
  return brain
    ? chooseRuntime(brain, deps.runtimePreference, ready)
    : ({ ok: false, reason: cannotRunMessage(ready[0] ?? deps.runtimePreference, String(unit.brain).slice(0, 40)) } as const);
}

/** The runtime, its binary, the resume id and the MCP address; or the failure to report once the start is taken. */
export function planRun(deps: UnitRunDeps, unit: ClaimedWork, packet: ReturnType<typeof checkContextPacket>, choice: ReturnType<typeof chooseRuntime>): Plan {
  const failed = (reason: string, runtime: 'claude' | 'codex' | null) => failedUnit(unit, reason, runtime, deps.knownSecrets());
  if (!packet.ok) return { ok: false, failure: failed(packet.reason, null) };
  if (!choice.ok) return { ok: false, failure: failed(choice.reason, null) };
  const runtime = choice.runtime;
  const binary = deps.capabilities[runtime].path;
  if (!binary) return { ok: false, failure: failed(`${runtime} is not installed on this machine.`, runtime) };
  const key = runtime === 'claude' && unit.kind === 'turn_execution' ? resumeKey(deps.tenantId, unit) : null;
  const mcpUrl = unit.mcp ? unitMcpUrl(deps.controlPlaneUrl, unit.mcp.url) : null;
  if (mcpUrl && !mcpUrl.ok) return { ok: false, failure: failed(`The unit's MCP URL was refused: ${mcpUrl.reason}.`, runtime) };
  const mcp = unit.mcp && mcpUrl?.ok ? { serverUrl: mcpUrl.url, token: unit.mcp.token } : null;
  return { ok: true, runtime, binary, key, resume: deps.resume.get(key), mcp, prompt: composePrompt(unit.prompt, packet.packet) };
}

function brainOf(brain: string | undefined): 'claude' | 'codex' | 'auto' | null {
  if (brain === undefined || brain === 'auto') return 'auto';
  return brain === 'claude' || brain === 'codex' ? brain : null;
}
