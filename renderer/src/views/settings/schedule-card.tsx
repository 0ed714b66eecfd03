import { useId, type ReactNode } from 'react';
import { formatSchedule, parseSchedule } from '../../../../shared/lending-schedule';
import type { SettingKey } from '../../../../shared/settings';
import { ScheduleGrid } from './schedule-grid';
import { SCHEDULE_PRESETS, scheduleSummary } from './schedule-text';
import { SettingField } from './setting-field';
import type { Draft } from './settings-form';
import './schedule.css';

/** The lending terms besides the schedule, shown under the grid in the order a lender thinks of them. */
export const LENDING_GROUPS: ReadonlyArray<{ title: string; keys: SettingKey[] }> = [
  { title: 'While you use the machine', keys: ['lendIdleMinutes', 'activeMachineMaxTurns', 'activeCpuCeilingPercent'] },
  { title: 'On battery', keys: ['lendOnBattery', 'lendMinBatteryPercent'] },
  { title: 'Disk and running turns', keys: ['diskMinFreeGb', 'lendStopsRunningTurns'] },
];

export interface ScheduleCardProps {
  draft: Draft;
  errorFor: (key: SettingKey) => string | null;
  overriddenBy: (key: SettingKey) => string | null;
  setField: (key: SettingKey, value: string | boolean) => void;
  /** What is said under a field besides its hint (e.g. "Every profile."). */
  noteFor: (key: SettingKey) => ReactNode;
}

function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

/**
 * "When this machine lends": the weekly schedule as a grid with presets and its summary in
 * words, then the other lending terms. It edits the same draft as every other field.
 */
export function ScheduleCard({ draft, errorFor, overriddenBy, setField, noteFor }: ScheduleCardProps) {
  const id = useId();
  const text = String(draft.lendSchedule);
  const grid = parseSchedule(text);
  const error = errorFor('lendSchedule');
  const lockedBy = overriddenBy('lendSchedule');
  const summaryId = `${id}-summary`;
  const errorId = `${id}-error`;
  return (
    <section className="card schedule-card" aria-labelledby={`${id}-title`} data-testid="schedule-card">
      <h2 id={`${id}-title`}>When this machine lends</h2>
      <p className="schedule-summary" id={summaryId} data-testid="schedule-summary">
        <span className="muted">Takes new work: </span>
        <strong>{scheduleSummary(text)}</strong>
      </p>
      <p className="hint" data-testid="schedule-zone">
        {lockedBy ? (
          <>
            Set by <code>{lockedBy}</code> when the host started; change it there.{' '}
          </>
        ) : null}
        Times are in this machine&rsquo;s time zone, <strong>{timeZone()}</strong>. Outside the hours marked nothing new is claimed. {noteFor('lendSchedule')}
      </p>
      <div className="schedule-presets" role="group" aria-label="Schedule presets">
        {SCHEDULE_PRESETS.map((preset) => (
          <button
            key={preset.label}
            type="button"
            className="button"
            aria-pressed={text === preset.text}
            disabled={lockedBy !== null}
            onClick={() => setField('lendSchedule', preset.text)}
          >
            {preset.label}
          </button>
        ))}
      </div>
      <ScheduleGrid
        grid={grid}
        readOnly={lockedBy !== null}
        describedBy={[summaryId, error ? errorId : null].filter(Boolean).join(' ')}
        onChange={(next) => setField('lendSchedule', formatSchedule(next))}
      />
      <p className="schedule-legend hint" aria-hidden="true">
        <span className="schedule-swatch on" /> lending <span className="schedule-swatch" /> not lending · click or drag to mark hours; arrows and Space in the
        grid
      </p>
      {error ? (
        <p id={errorId} className="field-error" data-testid="error-lendSchedule">
          {error}
        </p>
      ) : null}
      <div className="schedule-terms">
        {LENDING_GROUPS.map((group) => (
          <fieldset key={group.title} className="fieldset schedule-group">
            <legend>{group.title}</legend>
            {group.keys.map((key) => (
              <SettingField
                key={key}
                name={key}
                value={draft[key]}
                error={errorFor(key)}
                overriddenBy={overriddenBy(key)}
                onChange={(value) => setField(key, value)}
                note={noteFor(key)}
              />
            ))}
          </fieldset>
        ))}
      </div>
    </section>
  );
}
