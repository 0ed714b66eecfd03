import { describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';

describe('Sechroom wire schemas (shared/protocol/sechroom.ts)', () => {
  it('takes the seed registration body, including what JSON.stringify leaves of unset fields', () => {
    const body = JSON.parse(
      JSON.stringify({
        relayId: 'sechroom-cli-local',
        instanceKey: 'k',
        laneId: undefined,
        runtimeKind: 'Codex',
        activationMode: 'Attached',
        deliverySubscriptionId: undefined,
        connectorId: undefined,
        claimedCapabilityKeys: undefined,
        toolSetRef: null,
        ttlSeconds: NaN,
      }),
    );
    expect(sechroom.ExecutorRegistrationInputSchema.parse(body)).toMatchObject({ instanceKey: 'k', ttlSeconds: null, toolSetRef: null });
    expect(sechroom.ExecutorRegistrationInputSchema.safeParse({ instanceKey: 'k', ttlSeconds: 601 }).success).toBe(false);
  });

  it('keeps an unknown claim outcome as a string (the seed treats it as "try the direct claim")', () => {
    expect(sechroom.ClaimResultSchema.parse({ outcome: 'RacedByPeer', extra: 1 })).toEqual({ outcome: 'RacedByPeer' });
    expect(sechroom.ClaimResultSchema.safeParse({ lease: {} }).success).toBe(false);
  });

  it('reads both telemetry field sets and normalises the kind', () => {
    const cli = {
      taskId: 'mem_1',
      kind: 'terminal',
      tokensIn: 5,
      tokensOut: null,
      contextUsed: null,
      contextWindow: null,
      text: null,
      approvalState: null,
      verdict: 'pass',
    };
    expect(sechroom.RunTelemetryEventSchema.parse(cli).kind).toBe('Terminal');
    expect(sechroom.RunTelemetryEventSchema.safeParse({ ...cli, kind: 'noise' }).success).toBe(false);
    expect(sechroom.RunTelemetryEventSchema.safeParse({ ...cli, verdict: 'ok' }).success).toBe(false);
  });

  it('validates ids and verdicts', () => {
    expect(sechroom.MemoryIdSchema.safeParse('mem_abc123').success).toBe(true);
    expect(sechroom.MemoryIdSchema.safeParse('wlp_abc').success).toBe(false);
    expect(sechroom.DecompositionIdSchema.safeParse('wlp_abc').success).toBe(true);
    expect(sechroom.VERDICTS).toEqual(['pass', 'soft-fail', 'plan-invalid', 'blocked']);
  });
});
