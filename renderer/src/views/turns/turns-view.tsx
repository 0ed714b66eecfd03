import { useEffect, useState } from 'react';
import { useHostStore } from '../../store';
import { ActiveTurns } from './active-turns';
import { applyTurnFocus } from './focus-turn';
import { TurnDetail } from './turn-detail';
import { TurnHistory } from './turn-history';

/** Running turns and history on the left, the chosen turn's details on the right. */
export function TurnsView() {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const firstActive = useHostStore((s) => s.turns.active[0]?.id ?? null);
  // Nothing chosen yet: show the first running turn, and keep showing it when it ends
  // (state adjusted while rendering, as React recommends over an effect).
  if (selectedId === null && firstActive !== null) setSelectedId(firstActive);
  // The chosen turn wherever it is now: a running turn that finishes moves to history.
  const selected = useHostStore((s) => {
    const id = selectedId ?? firstActive;
    if (!id) return null;
    return s.turns.active.find((t) => t.id === id) ?? s.turns.history.find((t) => t.id === id) ?? null;
  });
  const turns = useHostStore((s) => s.turns);
  // A canceled turn moves from "Running now" to History: the keyboard follows it.
  useEffect(() => applyTurnFocus(), [turns]);
  return (
    <div className="view turns" data-testid="view-turns">
      <div className="turns-lists">
        <ActiveTurns selectedId={selected?.id ?? null} onSelect={setSelectedId} />
        <TurnHistory selectedId={selected?.id ?? null} onSelect={setSelectedId} />
      </div>
      <TurnDetail turn={selected} />
    </div>
  );
}
