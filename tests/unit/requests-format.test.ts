import { describe, expect, it } from 'vitest';
import { isHttpUrl, parseReason } from '../../shared/operator';
import { actionAvailable, automationLabel, formatAge, formatSeconds, formatUsd, phaseLabel } from '../../renderer/src/views/requests/format-request';

describe('the lifecycle reason', () => {
  it('is trimmed, optional, and at most 2000 characters', () => {
    expect(parseReason(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseReason('   \n ')).toEqual({ ok: true, value: undefined });
    expect(parseReason('  freeze  ')).toEqual({ ok: true, value: 'freeze' });
    expect(parseReason(` ${'x'.repeat(2000)} `)).toEqual({ ok: true, value: 'x'.repeat(2000) });
    expect(parseReason('x'.repeat(2001))).toEqual({ ok: false, message: 'The reason can be at most 2000 characters (it has 2001).' });
  });
});

describe('links from the control plane', () => {
  it('are only http(s), without credentials, spaces or direction overrides', () => {
    expect(isHttpUrl('https://github.com/acme/web/pull/412')).toBe(true);
    expect(isHttpUrl('http://127.0.0.1:7457/confirm/abc?x=1#y')).toBe(true);
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' https://x.example',
      'data:text/html,<script>1</script>',
      'https://user:pw@x.example/',
      'https://x.example/a b',
      'https://x.example/\u202Eevil',
      '//x.example/',
      'https:/x.example',
      null,
      '',
      `https://x.example/${'a'.repeat(3000)}`,
    ]) {
      expect(isHttpUrl(bad), String(bad)).toBe(false);
    }
  });
});

describe('request formatting', () => {
  it('says which actions a status allows, and why not', () => {
    expect(actionAvailable('pause', 'in_progress')).toEqual({ ok: true, why: null });
    expect(actionAvailable('pause', 'blocked').ok).toBe(true);
    expect(actionAvailable('pause', 'paused')).toEqual({ ok: false, why: 'A paused request cannot be paused.' });
    expect(actionAvailable('resume', 'blocked').ok).toBe(true);
    expect(actionAvailable('resume', 'open').ok).toBe(false);
    expect(actionAvailable('cancel', 'closed')).toEqual({ ok: false, why: 'The request is already closed.' });
    expect(actionAvailable('cancel', 'paused').ok).toBe(true);
  });

  it('writes ages, durations and money for people', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(formatAge('2026-12-01T11:59:30Z', now)).toBe('30 s');
    expect(formatAge('2026-12-01T11:01:00Z', now)).toBe('59 min');
    expect(formatAge('2026-12-01T09:00:00Z', now)).toBe('3 h');
    expect(formatAge('2026-11-28T12:00:00Z', now)).toBe('3 d');
    expect(formatAge('not a date', now)).toBe('—');
    expect(formatSeconds(7200)).toBe('2 h');
    expect(formatSeconds(5400)).toBe('1 h 30 min');
    expect(formatUsd('25')).toBe('$25.00');
  });
});

describe('phases and automation modes a control plane may send', () => {
  it('shows known ones in words and unknown ones as they are', () => {
    expect(phaseLabel('plan_review')).toBe('Plan review');
    expect(phaseLabel('security_review')).toBe('security_review');
    expect(phaseLabel('toString')).toBe('toString');
    expect(automationLabel('pull_request_only')).toBe('Pull request only');
    expect(automationLabel('autopilot_with_guardrails')).toBe('autopilot_with_guardrails');
  });
});
