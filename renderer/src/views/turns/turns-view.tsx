import { useEffect, useState } from 'react';
import { useHostStore } from '../../store';
import { ActiveTurns } from './active-turns';
import { applyTurnFocus } from './focus-turn';
import { TurnDetail } from './turn-detail';
import { TurnHistory } from './turn-history';
import { useTurnDetail } from './use-turn-detail';
import './turns.css';

/** Running turns and history on the left, the chosen turn's details on the right. */
export function TurnsView() {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const firstActive = useHostStore((s) => s.turns.active[0]?.id ?? null);
  // Nothing chosen yet: show the first running turn, and keep showing it when it ends
  // (state adjusted while rendering, as React recommends over an effect).
  if (selectedId === null && firstActive !== null) setSelectedId(firstActive);
  // The chosen turn wherever it is now: a running turn that finishes moves to history.
  const id = selectedId ?? firstActive;
  const running = useHostStore((s) => (id ? (s.turns.active.find((t) => t.id === id) ?? null) : null));
  const row = useHostStore((s) => (id && !running ? (s.turns.history.find((t) => t.id === id) ?? null) : null));
  // A history row carries no tail or summary: they are fetched when it is chosen.
  const detail = useTurnDetail(row);
  const selected = running ?? detail.turn;
  const turns = useHostStore((s) => s.turns);
  // A canceled turn moves from "Running now" to History: the keyboard follows it.
  useEffect(() => applyTurnFocus(), [turns]);
  return (
    <div className="view turns" data-testid="view-turns">
      <div className="turns-lists">
        <ActiveTurns selectedId={selected?.id ?? null} onSelect={setSelectedId} />
        <TurnHistory selectedId={selected?.id ?? null} onSelect={setSelectedId} />
      </div>
      <TurnDetail turn={selected} loading={detail.loading && !running} />
    </div>
  );
}
