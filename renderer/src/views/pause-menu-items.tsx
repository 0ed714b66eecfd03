import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { minutesUntilMorning, untilMorningLabel } from '../../../shared/pause-until';

const PRESETS: ReadonlyArray<{ label: string; minutes: number | null }> = [
  { label: 'Pause for 30 minutes', minutes: 30 },
  { label: 'Pause for 1 hour', minutes: 60 },
];

/** The Pause menu's items (pause-control.tsx), loaded when it first opens; the first item takes the focus. */
export function PauseMenuItems({
  id,
  onPause,
  onCustom,
  onPauseAll,
  onStop,
  onClose,
}: {
  id: string;
  onPause: (minutes: number | null) => void;
  onCustom: () => void;
  onPauseAll: (() => void) | null;
  onStop: () => void;
  onClose: (refocus?: boolean) => void;
}) {
  const itemsRef = useRef<(HTMLButtonElement | null)[]>([]);
  // The menu lives a moment: its words are those of when it opened; the minutes are counted at the click.
  const [morning] = useState(() => `Pause ${untilMorningLabel(new Date())}`);

  useEffect(() => {
    itemsRef.current[0]?.focus();
  }, []);

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = itemsRef.current.filter((i): i is HTMLButtonElement => i !== null);
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      items[(index + step + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (event.key === 'Tab') {
      onClose(false);
    }
  };

  const item = (index: number, label: string, onClick: () => void, testId?: string) => (
    <button
      key={label}
      ref={(el) => {
        itemsRef.current[index] = el;
      }}
      type="button"
      role="menuitem"
      tabIndex={-1}
      className="menu-item"
      data-testid={testId}
      onClick={onClick}
    >
      {label}
    </button>
  );

  return (
    <div className="menu" role="menu" id={id} aria-label="Pause" onKeyDown={onMenuKey}>
      {PRESETS.map((preset, i) => item(i, preset.label, () => onPause(preset.minutes)))}
      {item(PRESETS.length, morning, () => onPause(minutesUntilMorning(new Date())), 'pause-until-morning')}
      {item(PRESETS.length + 1, 'Pause until I resume', () => onPause(null))}
      {item(PRESETS.length + 2, 'Pause for…', onCustom)}
      {onPauseAll ? item(PRESETS.length + 3, 'Pause every profile', onPauseAll, 'pause-all') : null}
      {item(PRESETS.length + 4, 'Stop after the running turns', onStop, 'stop-after-turns')}
    </div>
  );
}
