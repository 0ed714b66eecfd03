// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../shared/settings';
import { setBridge } from '../../renderer/src/bridge/instance';
import { initialHostState, useHostStore } from '../../renderer/src/store';
import { ScheduleCard } from '../../renderer/src/views/settings/schedule-card';
import { scheduleSummary } from '../../renderer/src/views/settings/schedule-text';
import { draftFrom, type Draft } from '../../renderer/src/views/settings/settings-form';
import { SettingsView } from '../../renderer/src/views/settings/settings-view';
import { fakeBridge } from '../helpers/fake-bridge';

const seen = { text: '' };
function Harness({ initial, locked = null }: { initial: string; locked?: string | null }) {
  const [draft, setDraft] = useState<Draft>(() => ({ ...draftFrom(defaultSettings('studio')), lendSchedule: initial }));
  useEffect(() => {
    seen.text = String(draft.lendSchedule);
  }, [draft.lendSchedule]);
  return (
    <ScheduleCard
      draft={draft}
      errorFor={() => null}
      overriddenBy={(key) => (key === 'lendSchedule' ? locked : null)}
      setField={(key, value) => setDraft((d) => ({ ...d, [key]: value }))}
      noteFor={() => null}
    />
  );
}

const cell = (day: number, hour: number) => screen.getByTestId(`schedule-cell-${day}-${hour}`);

beforeEach(() => useHostStore.setState(initialHostState, true));
afterEach(cleanup);

describe('the Schedule card', () => {
  it('is one Tab stop that the arrows, Home and End move, and Space or Enter toggles, each cell named with its state', () => {
    render(<Harness initial="never" />);
    const stops = screen.getAllByRole('gridcell').filter((c) => c.tabIndex === 0);
    expect(stops).toEqual([cell(0, 9)]);
    expect(cell(0, 9).getAttribute('aria-label')).toBe('Monday 09:00–10:00, not lending');
    act(() => cell(0, 9).focus());
    fireEvent.keyDown(cell(0, 9), { key: ' ' });
    expect(seen.text).toBe('mon 09-10');
    expect(cell(0, 9).getAttribute('aria-label')).toBe('Monday 09:00–10:00, lending');
    fireEvent.keyDown(cell(0, 9), { key: 'ArrowRight' });
    expect(document.activeElement).toBe(cell(0, 10));
    expect(cell(0, 10).tabIndex).toBe(0);
    expect(cell(0, 9).tabIndex).toBe(-1);
    fireEvent.keyDown(cell(0, 10), { key: 'Enter' });
    fireEvent.keyDown(cell(0, 10), { key: 'ArrowDown' });
    fireEvent.keyDown(cell(1, 10), { key: 'End' });
    expect(document.activeElement).toBe(cell(1, 23));
    fireEvent.keyDown(cell(1, 23), { key: ' ' });
    fireEvent.keyDown(cell(1, 23), { key: 'Home' });
    expect(document.activeElement).toBe(cell(1, 0));
    fireEvent.keyDown(cell(1, 0), { key: 'End', ctrlKey: true });
    expect(document.activeElement).toBe(cell(6, 23));
    fireEvent.keyDown(cell(6, 23), { key: 'ArrowRight' });
    expect(document.activeElement).toBe(cell(6, 23));
    expect(seen.text).toBe('mon 09-11, tue 23-24');
    expect(screen.getByTestId('schedule-summary').textContent).toContain('Mon 09:00–11:00, Tue 23:00–24:00');
  });

  it('paints the hours a drag crosses with the first cell’s new value, and a drag from a marked hour clears', () => {
    render(<Harness initial="never" />);
    fireEvent.pointerDown(cell(2, 8), { button: 0, pointerId: 1 });
    for (const hour of [9, 10, 11]) fireEvent.pointerEnter(cell(2, hour), { pointerId: 1 });
    fireEvent.pointerEnter(cell(3, 11), { pointerId: 1 });
    fireEvent.pointerUp(window, { pointerId: 1 });
    fireEvent.pointerEnter(cell(4, 11), { pointerId: 1 });
    expect(seen.text).toBe('wed 08-12, thu 11-12');
    fireEvent.pointerDown(cell(2, 9), { button: 0, pointerId: 2 });
    fireEvent.pointerEnter(cell(2, 10), { pointerId: 2 });
    fireEvent.pointerUp(window, { pointerId: 2 });
    expect(seen.text).toBe('wed 08-09, wed 11-12, thu 11-12');
  });

  it('sets the exact schedule text from each preset and says it in words', () => {
    render(<Harness initial="mon 09-18" />);
    const preset = (name: string) => fireEvent.click(screen.getByRole('button', { name }));
    preset('Nights and weekends');
    expect(seen.text).toBe(
      'mon 00-09, mon 18-24, tue 00-09, tue 18-24, wed 00-09, wed 18-24, thu 00-09, thu 18-24, fri 00-09, fri 18-24, sat 00-24, sun 00-24',
    );
    expect(screen.getByTestId('schedule-summary').textContent).toContain('Mon–Fri 18:00–09:00, Sat–Sun all day');
    expect(screen.getByRole('button', { name: 'Nights and weekends' }).getAttribute('aria-pressed')).toBe('true');
    preset('Working hours');
    expect(seen.text).toBe('mon 09-18, tue 09-18, wed 09-18, thu 09-18, fri 09-18');
    expect(scheduleSummary(seen.text)).toBe('Mon–Fri 09:00–18:00');
    preset('Never');
    expect(seen.text).toBe('never');
    preset('Any time');
    expect(seen.text).toBe('');
    expect(scheduleSummary('')).toBe('Any time');
    expect(scheduleSummary('mon 08-10, mon 12-14, wed 10-11')).toBe('Mon 08:00–10:00 and 12:00–14:00, Wed 10:00–11:00');
  });

  it('names the time zone, and a schedule set by a flag is shown but not editable', () => {
    render(<Harness initial="mon 09-18" locked="--lend-schedule" />);
    expect(screen.getByTestId('schedule-zone').textContent).toContain(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(screen.getByTestId('schedule-zone').textContent).toContain('--lend-schedule');
    fireEvent.keyDown(cell(0, 9), { key: ' ' });
    fireEvent.pointerDown(cell(0, 3), { button: 0, pointerId: 1 });
    expect(seen.text).toBe('mon 09-18');
    expect((screen.getByRole('button', { name: 'Never' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('saves through settings:update with the other settings, sending the grid’s text', async () => {
    const settings = defaultSettings('studio');
    const { bridge, calls } = fakeBridge((name, input) =>
      name === 'settings:update' ? { settings: { ...settings, ...(input as object) }, overridden: [], warnings: [] } : null,
    );
    setBridge(bridge);
    useHostStore.setState({ settings: { settings, overridden: [], warnings: [] } });
    render(<SettingsView />);
    fireEvent.click(screen.getByRole('button', { name: 'Working hours' }));
    expect(screen.getByTestId('settings-status').textContent).toBe('1 unsaved change.');
    await act(async () => {
      fireEvent.click(screen.getByTestId('settings-save'));
    });
    expect(calls.find((c) => c.name === 'settings:update')?.input).toEqual({
      profile: 'default',
      lendSchedule: 'mon 09-18, tue 09-18, wed 09-18, thu 09-18, fri 09-18',
    });
    expect(screen.getByTestId('settings-status').textContent).toBe('Saved.');
  });
});
