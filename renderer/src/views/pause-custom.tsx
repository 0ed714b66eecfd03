import { useId, useState } from 'react';

const MAX_MINUTES = 7 * 24 * 60;

/** The pause menu's "Pause for…": a number of minutes (up to a week) and an optional note. */
export function CustomPause({ onPause, onCancel }: { onPause: (minutes: number, note?: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState('45');
  const [note, setNote] = useState('');
  const inputId = useId();
  const noteId = useId();
  const errorId = useId();
  const minutes = Number(value);
  const valid = value.trim() !== '' && Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_MINUTES;
  return (
    <form
      className="menu menu-form"
      aria-label="Pause for a number of minutes"
      onSubmit={(event) => {
        event.preventDefault();
        if (valid) onPause(minutes, note.trim() || undefined);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <label htmlFor={inputId}>Minutes</label>
      <input
        id={inputId}
        className="input input-narrow"
        type="number"
        inputMode="numeric"
        min={1}
        max={MAX_MINUTES}
        value={value}
        autoFocus
        aria-invalid={!valid}
        aria-describedby={valid ? undefined : errorId}
        onChange={(event) => setValue(event.target.value)}
      />
      {valid ? null : (
        <p id={errorId} className="field-error">
          Minutes must be a whole number from 1 to {MAX_MINUTES}.
        </p>
      )}
      <label htmlFor={noteId}>Note (optional, kept with the pause)</label>
      <input
        id={noteId}
        className="input"
        type="text"
        maxLength={500}
        value={note}
        data-testid="pause-note"
        onChange={(event) => setNote(event.target.value)}
      />
      <div className="menu-form-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={!valid} data-testid="pause-custom-submit">
          Pause
        </button>
      </div>
    </form>
  );
}
