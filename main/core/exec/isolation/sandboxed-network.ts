import type { Logger } from '../../base/ports';
import type { EgressTarget } from './egress/allowlist';
import { bridgedCommand, proxySocketPath, turnEgress } from './egress/egress-plan';
import { startEgressProxy, type EgressProxy } from './egress/proxy';
import { isolate, type IsolationTools } from './isolate';
import type { IsolatedCommand, IsolationSpec } from './spec';

/**
 * A sandboxed turn's own network, wired into its isolated command: under bubblewrap the
 * runtime runs behind the egress bridge and reaches the host only through the proxy's
 * socket bound into the sandbox; under sandbox-exec the proxy listens on a loopback port
 * the profile names and the runtime is pointed at it by the proxy variables. Either way
 * the allowlist decides what the turn may reach, and the command carries the proxy's start.
 */
export async function withTurnNetwork(
  spec: IsolationSpec,
  tools: IsolationTools,
  allow: readonly EgressTarget[],
  turnRoot: string,
  log: Logger,
  /** bubblewrap: the command goes to the bridge on fd 3 (`handoff` of the result), not on bubblewrap's command line. */
  handoff = false,
): Promise<IsolatedCommand> {
  if (tools.level === 'bubblewrap') return bridged(spec, tools, allow, turnRoot, log, handoff);
  return proxied(spec, tools, allow, log);
}

function bridged(spec: IsolationSpec, tools: IsolationTools, allow: readonly EgressTarget[], turnRoot: string, log: Logger, handoff: boolean): IsolatedCommand {
  const socket = proxySocketPath(turnRoot, spec.cwd);
  const bridge = bridgedCommand(allow, spec.command, spec.args, spec.env, handoff);
  if (!bridge) {
    // No Node for the bridge (the packaged app on a machine without node): the host's network, said once per turn.
    log.warn('no Node runs the egress bridge here: the turn shares the host network', { fix: 'install Node.js (a node on PATH)' });
    return isolate(spec, tools);
  }
  const inner: IsolationSpec = {
    ...spec,
    command: bridge.command,
    args: bridge.args,
    env: bridge.env,
    readOnly: [...new Set([...spec.readOnly, bridge.readOnly])],
    network: { socket },
  };
  return {
    ...isolate(inner, tools),
    egress: turnEgress(allow, { socketPath: socket }, log),
    ...(bridge.handoff ? { handoff: bridge.handoff } : {}),
  };
}

// sandbox-exec: loopback is not namespaced, so the proxy listens on a port the profile
// names. The first start hands over this proxy; a later one (an app-server restarted
// after its proxy closed) listens again on the same port.
async function proxied(spec: IsolationSpec, tools: IsolationTools, allow: readonly EgressTarget[], log: Logger): Promise<IsolatedCommand> {
  const proxy = await startEgressProxy({ listen: { port: 0, host: '127.0.0.1' }, allow, log });
  const proxyPort = proxy.port ?? 0;
  let unclaimed: EgressProxy | null = proxy;
  const start = (): Promise<EgressProxy> => {
    const first = unclaimed;
    unclaimed = null;
    return first ? Promise.resolve(first) : startEgressProxy({ listen: { port: proxyPort, host: '127.0.0.1' }, allow, log });
  };
  const url = `http://${proxy.address}`;
  const proxyEnv = { HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url, ALL_PROXY: url, NO_PROXY: 'localhost,127.0.0.1,::1' };
  const ports = allow.filter((t) => t.host === '127.0.0.1').map((t) => t.port);
  const inner: IsolationSpec = { ...spec, env: { ...spec.env, ...proxyEnv }, network: { proxyPort, loopbackPorts: ports } };
  const discard = async (): Promise<void> => {
    const first = unclaimed;
    unclaimed = null;
    await first?.close();
  };
  return { ...isolate(inner, tools), egress: { start, discard } };
}
