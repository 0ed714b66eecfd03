import { describe, expect, it } from 'vitest';
import { controlPlaneAddress, openableOrigins, recordedPrUrl } from '../../main/core/commands';
import { CommandFailure } from '../../main/core/base/dispatch';

describe('opening addresses for the operator', () => {
  const allowed = ['https://forge.example.com', null, 'http://127.0.0.1:7457'];

  it('allows only http(s) addresses on the control plane', () => {
    expect(controlPlaneAddress('https://forge.example.com/device?code=BCDF-GHJK', allowed)).toBe('https://forge.example.com/device?code=BCDF-GHJK');
    expect(controlPlaneAddress('http://127.0.0.1:7457/confirm/abc', allowed)).toBe('http://127.0.0.1:7457/confirm/abc');
  });

  it.each([
    'https://evil.example.com/device',
    'https://forge.example.com.evil.example/device',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://127.0.0.1:7458/device',
    'not a url',
    'https://user:pw@forge.example.com/device',
  ])('refuses %s', (url) => {
    expect(() => controlPlaneAddress(url, allowed)).toThrow(CommandFailure);
  });
});

describe('whose addresses may be opened', () => {
  it('the paired control plane only; the settings URL only while unpaired', () => {
    expect(openableOrigins('https://forge.example.com', 'https://other.example.com')).toEqual(['https://forge.example.com']);
    expect(() => controlPlaneAddress('https://other.example.com/device', openableOrigins('https://forge.example.com', 'https://other.example.com'))).toThrow(
      CommandFailure,
    );
    expect(controlPlaneAddress('https://other.example.com/device', openableOrigins(null, 'https://other.example.com'))).toBe(
      'https://other.example.com/device',
    );
  });
});

describe('pull requests a delivery recorded', () => {
  const pr = 'https://github.com/acme/widgets/pull/42';
  const turns = [
    { git: null },
    {},
    { git: { branch: 'task/x', base: { commit: 'a'.repeat(40), ref: 'main' }, commit: null, pushed: true, prUrl: pr, note: '', keptWorktree: null } },
  ];

  it('opens exactly a recorded PR address, nothing else on its host', () => {
    expect(recordedPrUrl(pr, turns)).toBe(pr);
    expect(recordedPrUrl('https://github.com/acme/widgets/pull/43', turns)).toBeNull();
    expect(recordedPrUrl('https://github.com/evil', turns)).toBeNull();
    expect(recordedPrUrl(`${pr}#x`, turns)).toBeNull();
    expect(recordedPrUrl('javascript:alert(1)', [{ git: { ...turns[2]!.git!, prUrl: 'javascript:alert(1)' } }])).toBeNull();
  });
});
