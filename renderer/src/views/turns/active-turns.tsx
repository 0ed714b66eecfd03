import { useId } from 'react';
import type { TurnView } from '../../../../shared/turns';
import { useHostStore } from '../../store';
import { isPaired } from '../../store/runner-slice';
import { shortId } from '../format';
import { profileName } from '../profiles/profile-text';
import { useNow } from '../use-now';
import { elapsed, LEASE_LABELS, PHASE_LABELS, runtimeLabel, seatLabel, sechroomFacts, tokensText } from './turn-text';
import { listboxKeyHandler } from './use-listbox-keys';

const optionId = (listId: string, turnId: string) => `${listId}-${turnId}`;

/** One row per running turn; choosing one shows its output in the detail pane. */
export function ActiveTurns({ selectedId, onSelect }: { selectedId: string | null; onSelect: (id: string) => void }) {
  const active = useHostStore((s) => s.turns.active);
  const listId = useId();
  const index = active.findIndex((t) => t.id === selectedId);

  return (
    <section className="card turns-active" aria-labelledby={`${listId}-title`}>
      <h2 id={`${listId}-title`}>Running now{active.length > 0 ? ` (${active.length})` : ''}</h2>
      {active.length === 0 ? (
        <ActiveEmpty />
      ) : (
        <div
          className="listbox"
          role="listbox"
          tabIndex={0}
          aria-labelledby={`${listId}-title`}
          aria-activedescendant={index >= 0 ? optionId(listId, active[index]!.id) : undefined}
          data-testid="active-turns"
          onKeyDown={listboxKeyHandler({ count: active.length, index, select: (i) => onSelect(active[i]!.id) })}
        >
          {active.map((turn) => (
            <div
              key={turn.id}
              id={optionId(listId, turn.id)}
              role="option"
              aria-selected={turn.id === selectedId}
              className="turn-row turn-row-active"
              data-testid="active-turn"
              data-turn-id={turn.id}
              onClick={() => onSelect(turn.id)}
            >
              <ActiveRow turn={turn} />
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

function ActiveRow({ turn }: { turn: TurnView }) {
  const tokens = tokensText(turn);
  const profile = useHostStore((s) => (s.profiles.length > 1 ? profileName(s.profiles, turn.profile) : null));
  return (
    <>
      <span className="turn-line">
        <span className="turn-seat">{seatLabel(turn)}</span>
        <span className={`badge badge-${turn.phase}`}>{PHASE_LABELS[turn.phase]}</span>
        <Elapsed turn={turn} />
      </span>
      <span className="turn-line turn-meta">
        {profile !== null ? <span data-testid="turn-profile">{profile}</span> : null}
        <span>{runtimeLabel(turn)}</span>
        {turn.plane === 'sechroom' ? (
          <span data-testid="sechroom-facts">{sechroomFacts(turn).join(' · ')}</span>
        ) : (
          <span>{turn.buildRequestId ? `request ${shortId(turn.buildRequestId)}` : 'no build request'}</span>
        )}
        {tokens ? <span>{tokens}</span> : null}
        {turn.lease && turn.plane !== 'sechroom' ? <span className={turn.lease === 'active' ? '' : 'warn-text'}>{LEASE_LABELS[turn.lease]}</span> : null}
      </span>
    </>
  );
}

function Elapsed({ turn }: { turn: TurnView }) {
  const now = useNow(1000);
  return (
    <span className="turn-elapsed" data-testid="turn-elapsed">
      {elapsed(turn, now)}
    </span>
  );
}

function ActiveEmpty() {
  const paired = useHostStore((s) => isPaired(s.runner.snapshot));
  // Another profile (a Sechroom instance beside an unpaired Rost one) may be taking work.
  const otherTakesWork = useHostStore((s) => s.profiles.some((p) => p.id !== s.runner.snapshot?.profile && p.runnerId !== null));
  const paused = useHostStore((s) => s.runner.snapshot?.paused != null);
  const text = !paired
    ? otherTakesWork
      ? 'Nothing running now. This profile is not paired yet (see Pairing); the other profiles’ turns show here as they run.'
      : 'Nothing runs until this machine is paired (see Pairing).'
    : paused
      ? 'Paused: no new turns start. Resume to take work again.'
      : 'Nothing running. Turns appear here as soon as the control plane hands this runner one.';
  return (
    <p className="empty" data-testid="active-empty">
      {text}
    </p>
  );
}
