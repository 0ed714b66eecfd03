import { describe, expect, it } from 'vitest';
import { resolveOverrides } from '../../../main/core/settings/overrides';

const fleet = (env: Record<string, string>, argv: string[] = []) => {
  const r = resolveOverrides(env, argv);
  return r.ok ? r.fleet : r.error.message;
};

describe('the headless fleet options (--metrics, --webhook-url)', () => {
  it('leaves /metrics off unless asked; on loopback port 9464 by default; a flag beats its variable', () => {
    expect(fleet({})).toEqual({ metrics: null, webhookUrl: null });
    expect(fleet({ RUNNER_TRAY_METRICS: '0' })).toEqual({ metrics: null, webhookUrl: null });
    expect(fleet({ RUNNER_TRAY_METRICS: '1' })).toEqual({ metrics: { host: '127.0.0.1', port: 9464, loopback: true }, webhookUrl: null });
    expect(fleet({ RUNNER_TRAY_METRICS_PORT: '9000' }, ['--metrics', '--metrics-port', '9100', '--metrics-host', '0.0.0.0'])).toEqual({
      metrics: { host: '0.0.0.0', port: 9100, loopback: false },
      webhookUrl: null,
    });
  });

  it('refuses a bad port or host, naming the flag or variable', () => {
    expect(fleet({}, ['--metrics', '--metrics-port', 'x'])).toBe('--metrics-port must be an integer from 0 to 65535.');
    expect(fleet({ RUNNER_TRAY_METRICS_PORT: '70000' }, ['--metrics'])).toBe('RUNNER_TRAY_METRICS_PORT must be an integer from 0 to 65535.');
    expect(fleet({}, ['--metrics-host', 'a b'])).toBe('--metrics-host must be an address to listen on, e.g. 127.0.0.1.');
  });

  it('takes an https webhook, or http on this machine only, and never repeats its value in a refusal', () => {
    expect(fleet({ RUNNER_TRAY_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x' })).toMatchObject({
      webhookUrl: 'https://hooks.slack.com/services/T/B/x',
    });
    expect(fleet({}, ['--webhook-url', 'http://127.0.0.1:8080/h'])).toMatchObject({ webhookUrl: 'http://127.0.0.1:8080/h' });
    const refused = fleet({ RUNNER_TRAY_WEBHOOK_URL: 'http://hooks.example/secret-path-canary' });
    expect(refused).toBe('RUNNER_TRAY_WEBHOOK_URL must be an https:// address (http:// only on this machine).');
    expect(fleet({}, ['--webhook-url', 'https://u:pw@hooks.example/x'])).toBe('--webhook-url must not carry a user or password.');
    expect(fleet({}, ['--webhook-url', 'ftp://hooks.example/x'])).toMatch(/^--webhook-url must be an https:/);
  });
});
