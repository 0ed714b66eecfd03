import type { RunningEmulator } from '../../emulator/index';
import { StaticTokenSource } from '../../main/core/planes/sechroom/sechroom-auth';
import { WorkLayerClient } from '../../main/core/planes/sechroom/work-layer-client';
import type { Verdict } from '../../shared/protocol/sechroom';

/** An executor instance on the emulator's Work Layer that a test drives by hand: take a task, complete it. */
export async function handExecutor(emu: RunningEmulator, minted: { tenant: string; access_token: string }, instanceKey = 'codex-a') {
  const client = new WorkLayerClient({ baseUrl: emu.sechroomUrl, tenant: minted.tenant, tokens: new StaticTokenSource(minted.access_token) });
  const instance = await client.register({ instanceKey, ttlSeconds: 600 });
  const take = (memoryId: string) => client.claimDirect(instance.id, emu.sechroom.getTask(memoryId).generationId!);
  return {
    take,
    /** Takes the task and completes it with `verdict` (the seed's title). */
    async complete(memoryId: string, title: string, verdict: Verdict) {
      const claim = await take(memoryId);
      await client.complete(claim.lease!.id, {
        executorInstanceId: instance.id,
        claimToken: claim.claimToken!,
        tokenVersion: 1,
        verdict,
        text: `${verdict} by hand`,
        source: instanceKey,
        title: `${title} — driven closeout`,
      });
    },
  };
}
