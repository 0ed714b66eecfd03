import { describe, expect, it } from 'vitest';
import { deriveStatus, type StatusInputs } from '../../main/core/planes/rost/runner-status';
import { faultOf, ConnectorError } from '../../main/core/connectors/errors';
import { statusLine } from '../../shared/status';

const base: StatusInputs = {
  paired: true,
  pairing: null,
  revoked: false,
  problem: null,
  offline: null,
  paused: null,
  draining: false,
  active: 0,
  max: 1,
  connected: true,
};
const now = Date.parse('2026-01-01T10:00:00Z');
const offline = (fault: NonNullable<NonNullable<StatusInputs['offline']>['fault']>) => ({ retryAt: now + 5000, message: 'x', fault });

describe('the header under a control-plane fault', () => {
  it('keeps running turns in front and says what the fault is', () => {
    const status = deriveStatus({ ...base, active: 1, offline: offline('malformed') });
    expect(status).toMatchObject({ state: 'working', active: 1, limit: 1, fault: 'malformed' });
    expect(statusLine(status, now)).toBe('Working 1 of 1 · the control plane answers nonsense');
  });

  it('words each fault for what it is', () => {
    const lines = (['unreachable', 'timeout', 'server', 'refused', 'malformed'] as const).map((fault) => [
      statusLine(deriveStatus({ ...base, offline: offline(fault) }), now),
      statusLine(deriveStatus({ ...base, active: 1, offline: offline(fault) }), now),
    ]);
    expect(lines).toEqual([
      ['Cannot reach the control plane, retrying in 5 s', 'Working 1 of 1 · cannot reach the control plane'],
      ['Control plane timed out, retrying in 5 s', 'Working 1 of 1 · the control plane is not answering in time'],
      ['Control plane error, retrying in 5 s', 'Working 1 of 1 · the control plane is failing (server error)'],
      ['Control plane refused the request, retrying in 5 s', 'Working 1 of 1 · the control plane refused a request'],
      ['Control plane answers nonsense, retrying in 5 s', 'Working 1 of 1 · the control plane answers nonsense'],
    ]);
  });

  it('maps each connector error kind to the fault the operator sees', () => {
    expect(faultOf(new ConnectorError('network', 'x'))).toBe('unreachable');
    expect(faultOf(new ConnectorError('timeout', 'x'))).toBe('timeout');
    expect(faultOf(new ConnectorError('server', 'x', 503))).toBe('server');
    expect(faultOf(new ConnectorError('rejected', 'x', 409))).toBe('refused');
    expect(faultOf(new ConnectorError('invalid_response', 'x', 200))).toBe('malformed');
  });
});
