import type { OperatorStatus } from '../../../shared/operator';
import type { Harness } from '../../integration/core-harness';

/** The id of a demo operator by name (`Ada Admin`, `Max Member`). */
export function operatorId(h: Harness, name: string): string {
  const found = h.emu.admin.listOperators().find((o) => o.name === name);
  if (!found) throw new Error(`no operator ${name}`);
  return found.id;
}

/** Runs the real device flow: start, approve as `name` on the emulator, wait for signed_in. */
export async function signIn(h: Harness, name: string): Promise<OperatorStatus> {
  const started = await h.invoke<OperatorStatus>('operator:sign-in');
  const flow = started.signIn?.phase === 'waiting' ? started.signIn : null;
  if (!flow) throw new Error(`sign-in is not waiting: ${JSON.stringify(started.signIn)}`);
  h.emu.admin.decideOAuthDeviceCode(flow.userCode, operatorId(h, name));
  return h.waitForEvent('operator:state', (s) => s.session.state === 'signed_in', 15_000);
}
