// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SettingsView } from '../../shared/contract';
import type { RunnerSnapshot } from '../../shared/runner';
import { defaultSettings } from '../../shared/settings';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { RuntimesCard } from '../../renderer/src/views/dashboard/runtimes-card';

function show(runtimes: RunnerSnapshot['runtimes'], useOwnAgentConfig = false, runtimeEnvAllow = '') {
  const snapshot = { runtimes } as RunnerSnapshot;
  const settings: SettingsView = { settings: { ...defaultSettings('box'), useOwnAgentConfig, runtimeEnvAllow }, overridden: [], warnings: [] };
  useHostStore.setState({ ...initialHostState, runner: { ...initialHostState.runner, snapshot }, settings }, true);
  render(<RuntimesCard />);
}

afterEach(() => {
  cleanup();
  useHostStore.setState(initialHostState, true);
});

describe('the runtimes card', () => {
  it('says how each runtime’s turns are isolated', () => {
    show({
      claude: { installed: true, version: '2.1.197', isolation: 'bubblewrap' },
      codex: { installed: true, version: '0.171.0', isolation: 'environment', isolationNote: 'bubblewrap (bwrap) is not installed' },
    });
    const levels = screen.getAllByTestId('runtime-isolation').map((e) => e.textContent);
    expect(levels).toEqual([' · sandboxed (bubblewrap)', ' · environment only (bubblewrap (bwrap) is not installed)']);
    expect(screen.queryByTestId('own-config-warning')).toBeNull();
    expect(screen.queryByTestId('widening-warning')).toBeNull();
  });

  it('shows a warning badge while a setting widens what a turn can reach', () => {
    show({ claude: { installed: true, isolation: 'bubblewrap' }, codex: { installed: false } }, false, 'AWS_*');
    expect(screen.getByTestId('widening-warning').textContent).toContain('Turns reach more: Extra environment variables for runtimes');
  });

  it('warns while turns use the operator’s own claude/codex settings', () => {
    show({ claude: { installed: true, isolation: 'bubblewrap' }, codex: { installed: false } }, true);
    expect(screen.getByTestId('own-config-warning').textContent).toMatch(/your own claude\/codex settings/);
  });
});
