// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageAccountView } from '../../shared/usage';
import { CapBars } from '../../renderer/src/views/dashboard/cap-bars';

const now = Date.parse('2026-12-02T14:16:00Z');
const totals = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0, unpricedTurns: 0 };

function account(runtime: 'claude' | 'codex', caps: UsageAccountView['caps']): UsageAccountView {
  return {
    key: `${runtime}:default`,
    runtime,
    alias: 'default',
    windows: { primary: null, secondary: null },
    observedAt: null,
    limited: null,
    today: totals,
    week: totals,
    lastTurn: null,
    admission: { state: 'claiming' },
    history: [],
    caps,
  };
}

afterEach(cleanup);

describe('the cap bars of the Model accounts card', () => {
  it('shows each cap’s used and limit, and its reset', () => {
    const resetsAt = now + 2 * 3_600_000;
    render(
      <CapBars
        account={account('claude', [{ id: 'daily-tokens', used: 1_200_000, limit: 1_000_000, resetsAt, costUnknown: false, reached: true }])}
        now={now}
      />,
    );
    const bar = screen.getByTestId('usage-cap-daily-tokens');
    expect(bar.textContent).toContain('Daily token cap');
    expect(bar.textContent).toContain('1.2 M of 1 M · resets in 2 h');
    expect(bar.textContent).toContain('reached');
    expect(bar.querySelector('meter')?.getAttribute('value')).toBe('1000000');
  });

  it('a cost cap over codex says the cost is unknown and the cap cannot be enforced, never $0', () => {
    render(
      <CapBars
        account={account('codex', [{ id: 'weekly-cost', used: 0, limit: 10, resetsAt: now + 86_400_000 * 3, costUnknown: true, reached: false }])}
        now={now}
      />,
    );
    expect(screen.getByTestId('usage-cap-weekly-cost').textContent).toContain('cost unknown');
    expect(screen.getByTestId('usage-cap-unknown').textContent).toMatch(/cannot be enforced for this account/);
  });

  it('shows nothing without caps', () => {
    const { container } = render(<CapBars account={account('claude', [])} now={now} />);
    expect(container.textContent).toBe('');
  });
});
