import { describe, expect, it } from 'vitest';
import { HeartbeatRequestSchema } from '../../../../shared/protocol';
import { CapabilityDetector } from '../../../../main/core/runner/capabilities';
import { buildHeartbeat } from '../../../../main/core/planes/rost/heartbeat-body';
import type { CommandRunner } from '../../../../main/core/exec/process-runner';
import { FakeClock } from '../../../helpers/fake-clock';

const runner: CommandRunner = {
  which: async (name) => (name === 'claude' ? '/usr/bin/claude' : null),
  run: async () => ({ code: 0, stdout: '2.1.197 (Claude Code)\n', stderr: '' }),
};

describe('isolation in capabilities and the heartbeat', () => {
  it('each installed runtime carries the probed level; the heartbeat says it in telemetry.isolation [v1], the seed capability shape unchanged', async () => {
    const detector = new CapabilityDetector(runner, new FakeClock(0), undefined, {}, async () => ({ level: 'bubblewrap', note: null }));
    const capabilities = await detector.refresh();
    expect(capabilities.claude).toEqual({ installed: true, path: '/usr/bin/claude', version: '2.1.197', isolation: 'bubblewrap' });
    expect(capabilities.codex).toEqual({ installed: false });
    const body = buildHeartbeat({
      name: 'laptop',
      runnerVersion: '1.0.0',
      paused: false,
      runtime: 'auto',
      capabilities,
      os: { platform: 'linux', release: '6', arch: 'x64' },
      cpuCount: 2,
      sample: null,
      activeSessions: 0,
      maxSessions: 1,
      modelAccount: { alias: 'default', state: 'ok' },
    });
    expect(body.capabilities).toEqual({ claude: { installed: true, path: '/usr/bin/claude', version: '2.1.197' }, codex: { installed: false } });
    expect(body.telemetry?.isolation).toEqual({ claude: 'bubblewrap' });
    expect(HeartbeatRequestSchema.parse(body).telemetry?.isolation).toEqual({ claude: 'bubblewrap' });
  });

  it('says why a runtime gets the environment only', async () => {
    const detector = new CapabilityDetector(runner, new FakeClock(0), undefined, {}, async () => ({
      level: 'environment',
      note: 'bubblewrap (bwrap) is not installed',
    }));
    expect((await detector.refresh()).claude).toMatchObject({ isolation: 'environment', isolationNote: 'bubblewrap (bwrap) is not installed' });
  });
});
