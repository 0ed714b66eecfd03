import type { StartEmulatorOptions } from '../../emulator/index';
import { api, launch, type ApiOptions, type ApiResponse } from './helpers';

export type SechroomEmu = Awaited<ReturnType<typeof launchSechroom>>;

export interface Session {
  token: string;
  refresh: string;
  tenant: string;
  operatorId: string;
}

/** An emulator (no sweeper timer) plus Work Layer helpers: a minted session and calls with the seed's headers. */
export async function launchSechroom(opts: StartEmulatorOptions = {}) {
  const emu = await launch(opts);
  const mint = (input: { operator_id?: string; ttl_ms?: number } = {}): Session => {
    const t = emu.sechroom.mintToken(input);
    return { token: t.access_token, refresh: t.refresh_token!, tenant: t.tenant, operatorId: t.operator_id };
  };
  const session = mint();
  /** A Work Layer call as the seed's client makes it: bearer, `tenant`, `x-sechroom-surface: cli`. */
  const wl = (path: string, o: ApiOptions & { as?: Session | undefined; surface?: string | null; tenant?: string | null } = {}): Promise<ApiResponse> => {
    const who = o.as ?? session;
    const headers: Record<string, string> = { ...o.headers };
    if (o.tenant !== null) headers.tenant = o.tenant ?? who.tenant;
    if (o.surface !== null) headers['x-sechroom-surface'] = o.surface ?? 'cli';
    return api(emu.sechroomUrl, path, { token: who.token, ...o, headers });
  };
  const register = async (instanceKey: string, extra: Record<string, unknown> = {}, as?: Session) => {
    const res = await wl('/me/executor-instances', {
      as,
      body: {
        relayId: 'sechroom-cli-local',
        instanceKey,
        laneId: instanceKey,
        runtimeKind: 'Codex',
        activationMode: 'Attached',
        deliverySubscriptionId: 'sub_1',
        connectorId: 'conn_codex',
        claimedCapabilityKeys: [],
        toolSetRef: null,
        ttlSeconds: 600,
        ...extra,
      },
    });
    if (res.status !== 200) throw new Error(`register answered ${res.status} ${res.text}`);
    return res.json as { id: string; laneId: string; expiresAt: string };
  };
  const offers = async (instanceId: string, as?: Session) =>
    (await wl(`/me/executor-instances/${instanceId}/dispatch-offers`, { as })).json as Array<{
      generationId: string;
      memoryId: string;
      tags: string[];
      suggestedClaimDelayMs: number;
    }>;
  const claimNext = (instanceId: string, idempotencyKey: string, as?: Session) =>
    wl(`/me/executor-instances/${instanceId}/dispatch-offers/claim-next`, { as, body: { idempotencyKey } });
  const claimDirect = (instanceId: string, generationId: string, as?: Session) =>
    wl('/me/executor-task-claims', { as, body: { generationId, executorInstanceId: instanceId } });
  /** The seed's claim: offers, then claim-next with `executor-run:<head>`. */
  const claimHead = async (instanceId: string) => {
    const [head] = await offers(instanceId);
    if (!head) throw new Error('no offer');
    const res = await claimNext(instanceId, `executor-run:${head.generationId}`);
    if (res.json?.outcome !== 'Claimed') throw new Error(`claim-next answered ${res.text}`);
    return res.json as { lease: { id: string; memoryId: string; generationId: string; workspaceId: string; expiresAt: string }; claimToken: string };
  };
  const heartbeat = (leaseId: string, claimToken: string) => wl(`/me/executor-task-leases/${leaseId}/heartbeat`, { body: { claimToken, tokenVersion: 1 } });
  const complete = (leaseId: string, body: Record<string, unknown>) =>
    wl(`/me/executor-task-leases/${leaseId}/complete`, {
      body: { tokenVersion: 1, verdict: 'pass', text: 'done', source: 'lane-a', title: 'T — driven closeout', ...body },
    });
  return Object.assign(emu, { mint, session, wl, register, offers, claimNext, claimDirect, claimHead, heartbeat, complete });
}
