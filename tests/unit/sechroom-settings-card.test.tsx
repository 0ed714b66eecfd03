// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../shared/profiles';
import type { SechroomSettingsView } from '../../shared/sechroom-profile-contract';
import { HEARTBEAT_TOO_LONG, TTL_RANGE } from '../../shared/sechroom-instance-settings';
import { setBridge } from '../../renderer/src/bridge/instance';
import { fakeBridge } from '../helpers/fake-bridge';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { SettingsView } from '../../renderer/src/views/settings/settings-view';
import { sechroomDraftFrom, sechroomErrors, sechroomInputOf } from '../../renderer/src/views/settings/sechroom-form';

const summary = (id: string, connector: 'rost' | 'sechroom'): ProfileSummary => ({
  id,
  name: id,
  connector,
  controlPlaneUrl: '',
  status: { state: 'unpaired', reason: 'x' },
  runnerId: null,
  paused: false,
  active: 0,
});

const UNSET: SechroomSettingsView = {
  profile: 'codex-a',
  config: null,
  problem: null,
  credential: { source: 'env', note: 'Token from SECHROOM_TOKEN (the only Sechroom profile here).' },
  signedIn: true,
};

const valid = () => ({
  ...sechroomDraftFrom(null),
  baseUrl: 'http://127.0.0.1:7457/sechroom',
  tenant: 't-1',
  'instance.instanceKey': 'codex-a',
  'instance.root': '/srv/checkout',
});

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

describe('the Sechroom instance form', () => {
  it('starts from the seed’s defaults and checks every field with the core’s schema and the seed’s messages', () => {
    const draft = sechroomDraftFrom(null);
    expect(draft).toMatchObject({
      account: 'default',
      'instance.ttlSeconds': '600',
      'instance.pollIntervalSeconds': '5',
      'instance.sandbox': 'workspace-write',
      deliver: true,
    });
    expect(sechroomErrors(draft)).toMatchObject({ 'instance.instanceKey': '--instance-key is required', 'instance.root': '--root is required' });
    expect(sechroomErrors(valid())).toEqual({});
    const bad = sechroomErrors({
      ...valid(),
      baseUrl: 'http://user:pw@host/x',
      'instance.ttlSeconds': '5',
      'instance.heartbeatIntervalSeconds': '200',
      'instance.capabilityKeys': 'a, ,b',
    });
    expect(bad.baseUrl).toMatch(/without credentials/);
    expect(bad['instance.ttlSeconds']).toBe(TTL_RANGE);
    expect(bad['instance.heartbeatIntervalSeconds']).toBe(HEARTBEAT_TOO_LONG);
    expect(bad['instance.capabilityKeys']).toBe('--capability must not be empty');
    expect(sechroomInputOf({ ...valid(), 'instance.capabilityKeys': 'x, y', 'instance.laneId': '  ' })).toMatchObject({
      instance: { capabilityKeys: ['x', 'y'], instanceKey: 'codex-a', ttlSeconds: '600' },
    });
    expect(sechroomInputOf(valid()).instance).not.toHaveProperty('laneId');
  });

  it('is shown only for a Sechroom profile, sends nothing while a field is wrong, and saves through sechroom:configure', async () => {
    let saved: SechroomSettingsView = UNSET;
    const { bridge, calls } = fakeBridge((name, input) => {
      if (name === 'sechroom:get') return saved;
      if (name === 'sechroom:configure') {
        const { profile: _p, ...config } = input as Record<string, unknown>;
        saved = {
          ...UNSET,
          config: {
            ...(config as SechroomSettingsView['config'] & object),
            account: 'default',
            instance: { ...(config.instance as object), ttlSeconds: 300, capabilityKeys: [] },
          },
        };
        return summary('codex-a', 'sechroom');
      }
      return null;
    });
    setBridge(bridge);
    useHostStore.setState({ profile: 'default', profiles: [summary('default', 'rost'), summary('codex-a', 'sechroom')] });
    const { rerender } = render(<SettingsView />);
    expect(screen.queryByTestId('sechroom-card')).toBeNull();

    act(() => useHostStore.setState({ profile: 'codex-a' }));
    rerender(<SettingsView />);
    await screen.findByTestId('sechroom-form');
    expect(screen.getByTestId('sechroom-credential').textContent).toMatch(/^Token from SECHROOM_TOKEN/);
    expect(screen.getByTestId('sechroom-restart').textContent).toMatch(/restarts this profile’s executor/);

    const type = (key: string, value: string) => fireEvent.change(screen.getByTestId(`sechroom-${key}`), { target: { value } });
    type('baseUrl', 'http://127.0.0.1:7457/sechroom');
    type('tenant', 't-1');
    type('instance.instanceKey', 'codex-a');
    type('instance.ttlSeconds', '9');
    expect(screen.getByTestId('sechroom-instance.ttlSeconds-error').textContent).toBe(TTL_RANGE);
    await act(async () => fireEvent.click(screen.getByTestId('sechroom-save')));
    // The untouched required root is marked now, and nothing went to the core.
    expect(screen.getByTestId('sechroom-instance.root-error').textContent).toBe('--root is required');
    expect(calls.filter((c) => c.name === 'sechroom:configure')).toEqual([]);

    type('instance.ttlSeconds', '300');
    type('instance.root', '/srv/checkout');
    await act(async () => fireEvent.click(screen.getByTestId('sechroom-save')));
    await waitFor(() => expect(screen.getByTestId('sechroom-status').textContent).toMatch(/^Saved/));
    const sent = calls.find((c) => c.name === 'sechroom:configure')!.input;
    expect(sent).toMatchObject({
      profile: 'codex-a',
      baseUrl: 'http://127.0.0.1:7457/sechroom',
      tenant: 't-1',
      instance: { instanceKey: 'codex-a', ttlSeconds: '300', root: '/srv/checkout' },
    });
    expect((screen.getByTestId('sechroom-instance.ttlSeconds') as HTMLInputElement).value).toBe('300');
  });

  it('puts the core’s refusal next to its field, and says why SECHROOM_TOKEN does not sign this profile in', async () => {
    const view: SechroomSettingsView = {
      ...UNSET,
      credential: {
        source: 'sign-in',
        note: 'SECHROOM_TOKEN is not used here: this host has 2 Sechroom profiles; set SECHROOM_TOKEN_PROFILE to the one it is for.',
      },
      signedIn: false,
    };
    const { bridge } = fakeBridge((name) => (name === 'sechroom:get' ? view : new Error('the root is not a git checkout')), 'instance.root');
    setBridge(bridge);
    useHostStore.setState({ profile: 'codex-a', profiles: [summary('codex-a', 'sechroom'), summary('codex-b', 'sechroom')] });
    render(<SettingsView />);
    await screen.findByTestId('sechroom-form');
    expect(screen.getByTestId('sechroom-credential').textContent).toMatch(/Not signed in.*set SECHROOM_TOKEN_PROFILE/);
    for (const [key, value] of Object.entries(valid()))
      if (typeof value === 'string') fireEvent.change(screen.getByTestId(`sechroom-${key}`), { target: { value } });
    await act(async () => fireEvent.click(screen.getByTestId('sechroom-save')));
    expect((await screen.findByTestId('sechroom-instance.root-error')).textContent).toBe('the root is not a git checkout');
  });
});
