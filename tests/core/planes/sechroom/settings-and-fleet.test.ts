import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetConfigError, parseFleetConfig, readFleetConfig } from '../../../../main/core/planes/sechroom/fleet-config';
import { checkInstanceSettings, laneOf, refreshAfterMs, registrationInput } from '../../../../shared/sechroom-instance-settings';

const laneOfEntry = (e: { settings: Parameters<typeof laneOf>[0] }) => laneOf(e.settings);
const base = { instanceKey: 'codex-a', root: '/work/checkout-a' };
const message = (input: Record<string, unknown>) => {
  const checked = checkInstanceSettings({ ...base, ...input });
  return checked.ok ? null : checked.message;
};

describe('instance settings', () => {
  it("takes the seed's defaults", () => {
    const checked = checkInstanceSettings(base);
    if (!checked.ok) throw new Error(checked.message);
    expect(checked.settings).toMatchObject({
      runtime: 'codex',
      relayId: 'sechroom-cli-local',
      capabilityKeys: [],
      ttlSeconds: 600,
      pollIntervalSeconds: 5,
      heartbeatIntervalSeconds: 30,
      turnTimeoutSeconds: 300,
      resumeTurnTimeoutSeconds: 1200,
      drainTimeoutSeconds: 30,
      usageReservePercent: 2,
      sandbox: 'workspace-write',
    });
    expect(laneOf(checked.settings)).toBe('codex-a');
    expect(refreshAfterMs(checked.settings)).toBe(300_000);
    expect(registrationInput(checked.settings)).toMatchObject({
      instanceKey: 'codex-a',
      laneId: 'codex-a',
      activationMode: 'Attached',
      toolSetRef: null,
      ttlSeconds: 600,
    });
  });

  it("refuses what the seed refuses, in the seed's words", () => {
    expect(message({ runtime: 'claude-code' })).toBe('executor run drives runtime codex only (claude-code stays attached)');
    expect(message({ runtime: 'CODEX' })).toBeNull();
    expect(message({ heartbeatIntervalSeconds: 120 })).toBe('--heartbeat-interval must be shorter than the 120s lease TTL');
    expect(message({ heartbeatIntervalSeconds: '119' })).toBeNull();
    for (const reserve of [-1, 100, 'abc', Number.NaN]) expect(message({ usageReservePercent: reserve })).toBe('--usage-reserve must be a percent in [0, 100)');
    expect(message({ usageReservePercent: '0' })).toBeNull();
    expect(message({ ttlSeconds: 100, refreshAfterSeconds: 100 })).toBe('refresh-after must be shorter than the TTL');
  });

  it('validates what the seed leaves to parseInt (B15.11: NaN became an immediate timer)', () => {
    expect(message({ ttlSeconds: 'abc' })).toBe('--ttl must be a whole number of seconds in [30, 600]');
    expect(message({ ttlSeconds: 20 })).toBe('--ttl must be a whole number of seconds in [30, 600]');
    expect(message({ pollIntervalSeconds: '5s' })).toBe('--poll-interval must be a whole number of seconds in [1, 3600]');
    expect(message({ pollIntervalSeconds: 0 })).toBe('--poll-interval must be a whole number of seconds in [1, 3600]');
    expect(message({ turnTimeoutSeconds: 'NaN' })).toBe('--turn-timeout must be a whole number of seconds in [10, 86400]');
    expect(message({ resumeTurnTimeoutSeconds: -5 })).toBe('--resume-turn-timeout must be a whole number of seconds in [10, 86400]');
    expect(message({ drainTimeoutSeconds: 1.5 })).toBe('--drain-timeout must be a whole number of seconds in [0, 3600]');
    expect(message({ heartbeatIntervalSeconds: 0 })).toBe('--heartbeat-interval must be a whole number of seconds in [1, 119]');
    expect(message({ sandbox: 'yolo' })).toBe('--sandbox must be one of read-only, workspace-write, danger-full-access');
    expect(message({ instanceKey: undefined })).toBe('--instance-key is required');
    expect(message({ instanceKey: '  ' })).toBe('--instance-key must not be empty');
  });
});

describe('fleet config (sechroom executor fleet --config)', () => {
  const parse = (value: unknown) => parseFleetConfig(typeof value === 'string' ? value : JSON.stringify(value), 'fleet.json', '/work/fleet');
  const refusal = (value: unknown) => {
    try {
      parse(value);
    } catch (error) {
      if (error instanceof FleetConfigError) return error.message;
      throw error;
    }
    return null;
  };

  it("refuses a config without instances, an entry without root or instanceKey, and duplicate keys, with the seed's messages", () => {
    for (const bad of [{}, { instances: [] }, { instances: {} }, [], null])
      expect(refusal(bad)).toBe("fleet config must contain a non-empty 'instances' array");
    for (const entry of [{ root: 'a' }, { instanceKey: 'k' }, { root: 1, instanceKey: 'k' }, null, 'x']) {
      expect(refusal({ instances: [entry] })).toBe("each fleet instance requires string 'root' and 'instanceKey'");
    }
    expect(
      refusal({
        instances: [
          { root: 'a', instanceKey: 'k' },
          { root: 'b', instanceKey: 'k' },
        ],
      }),
    ).toBe("duplicate fleet instanceKey 'k'");
    expect(refusal('{ not json')).toMatch(/^fleet.json is not valid JSON: /);
  });

  it('maps the entry keys onto instance settings as the seed maps them onto flags, resolving root against the config folder', () => {
    const [a, b] = parse({
      instances: [
        {
          root: '../checkout-a',
          instanceKey: 'codex-a',
          lane: 'lane-1',
          model: 'gpt-5',
          connector: 'conn',
          ttl: 600,
          pollInterval: 5,
          heartbeatInterval: 30,
          turnTimeout: 300,
          resumeTurnTimeout: 1200,
          drainTimeout: 30,
          codexBin: 'codex',
          sandbox: 'read-only',
          usageReserve: 2,
          once: true,
        },
        { root: '/abs/checkout-b', instanceKey: 'codex-b', ttl: '120', usageReserve: '5.5' },
      ],
    });
    expect(a!.settings).toMatchObject({
      root: '/work/checkout-a',
      instanceKey: 'codex-a',
      laneId: 'lane-1',
      model: 'gpt-5',
      connectorId: 'conn',
      sandbox: 'read-only',
      codexBin: 'codex',
    });
    expect(a!.ignoredKeys).toEqual(['once']);
    expect(b!.settings).toMatchObject({ root: '/abs/checkout-b', ttlSeconds: 120, usageReservePercent: 5.5 });
    expect(laneOfEntry(b!)).toBe('codex-b');
  });

  it("validates each entry's values with the run's messages, naming the entry (the seed finds out in a child process, or never)", () => {
    expect(refusal({ instances: [{ root: 'a', instanceKey: 'k1', heartbeatInterval: 120 }] })).toBe(
      "fleet instance 'k1': --heartbeat-interval must be shorter than the 120s lease TTL",
    );
    expect(refusal({ instances: [{ root: 'a', instanceKey: 'k2', usageReserve: 100 }] })).toBe(
      "fleet instance 'k2': --usage-reserve must be a percent in [0, 100)",
    );
    expect(refusal({ instances: [{ root: 'a', instanceKey: 'k3', ttl: 'soon' }] })).toBe(
      "fleet instance 'k3': --ttl must be a whole number of seconds in [30, 600]",
    );
  });

  describe('from a file', () => {
    let dir = '';
    afterEach(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('reads the file and says when it cannot', async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'fleet-'));
      const file = path.join(dir, 'fleet.json');
      await writeFile(file, JSON.stringify({ instances: [{ root: 'checkout', instanceKey: 'codex-a' }] }));
      const [entry] = await readFleetConfig(file);
      expect(entry!.settings.root).toBe(path.join(dir, 'checkout'));
      await expect(readFleetConfig(path.join(dir, 'missing.json'))).rejects.toThrow(/^cannot read fleet config .*missing\.json \(ENOENT\)$/);
    });
  });
});
