import { lazy, Suspense, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useHostStore } from '../store';
import { isPaired } from '../store/runner-slice';
import { ErrorLine } from './common/error-line';
import { useCommand } from './common/use-command';

const PRESETS: ReadonlyArray<{ label: string; minutes: number | null }> = [
  { label: 'Pause for 30 minutes', minutes: 30 },
  { label: 'Pause for 1 hour', minutes: 60 },
  { label: 'Pause until I resume', minutes: null },
];
// The form for a number of minutes is seldom opened: loaded then, not with the first view.
const CustomPause = lazy(async () => ({ default: (await import('./pause-custom')).CustomPause }));

/**
 * One click to pause (until resumed) or resume; the arrow beside Pause opens a small
 * menu for a timed pause. Pausing stops claiming new work; running turns finish.
 */
export function PauseControl() {
  const paired = useHostStore((s) => isPaired(s.runner.snapshot));
  const paused = useHostStore((s) => s.runner.snapshot?.paused != null);
  const status = useHostStore((s) => s.runner.status);
  const pause = useCommand('runner:pause');
  const resume = useCommand('runner:resume');
  const quit = useCommand('runner:quit');
  const pauseAll = useCommand('runner:pause-all');
  const several = useHostStore((s) => s.profiles.length > 1);
  const [menuOpen, setMenuOpen] = useState(false);
  const error = pause.error ?? resume.error ?? quit.error ?? pauseAll.error;
  // The button pressed goes away (Pause becomes Resume): keep the keyboard where it was
  // by moving focus to the button that replaced it, once the host confirmed the change.
  const focusNext = useRef<'pause' | 'resume' | null>(null);
  const pauseRef = useRef<HTMLButtonElement>(null);
  const resumeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusNext.current === 'resume' && paused) resumeRef.current?.focus();
    else if (focusNext.current === 'pause' && !paused) pauseRef.current?.focus();
    else return;
    focusNext.current = null;
  }, [paused]);
  const doPause = (minutes: number | null, note?: string) => {
    focusNext.current = 'resume';
    void pause.run({ minutes, ...(note ? { note } : {}) });
  };

  if (!paired) return null;
  if (status?.state === 'draining') {
    // The host is quitting: it waits for the running turns (the status line says how long).
    const waiting = status.mode !== 'now' && status.remaining > 0;
    return (
      <div className="pause-control">
        {waiting ? (
          <>
            <button type="button" className="button" data-testid="quit-cancel" disabled={quit.pending} onClick={() => void quit.run({ mode: 'cancel' })}>
              Keep running
            </button>
            <button
              type="button"
              className="button button-danger"
              data-testid="quit-now"
              disabled={quit.pending}
              onClick={() => void quit.run({ mode: 'now' })}
            >
              Stop now
            </button>
          </>
        ) : null}
        {error ? <ErrorLine error={error} /> : null}
      </div>
    );
  }
  return (
    <div className="pause-control">
      {paused ? (
        <button
          ref={resumeRef}
          type="button"
          className="button button-primary"
          data-testid="resume"
          disabled={resume.pending}
          onClick={() => {
            focusNext.current = 'pause';
            void resume.run();
          }}
        >
          Resume
        </button>
      ) : (
        <div className="split-button">
          <button ref={pauseRef} type="button" className="button" data-testid="pause" disabled={pause.pending} onClick={() => doPause(null)}>
            Pause
          </button>
          <PauseMenu
            open={menuOpen}
            setOpen={setMenuOpen}
            onPause={(minutes, note) => {
              setMenuOpen(false);
              doPause(minutes, note);
            }}
            onStop={() => {
              setMenuOpen(false);
              void quit.run({ mode: 'after-turns' });
            }}
            onPauseAll={
              several
                ? () => {
                    setMenuOpen(false);
                    focusNext.current = 'resume';
                    void pauseAll.run({ minutes: null });
                  }
                : null
            }
          />
        </div>
      )}
      {error ? <ErrorLine error={error} /> : null}
    </div>
  );
}

function PauseMenu({
  open,
  setOpen,
  onPause,
  onStop,
  onPauseAll,
}: {
  open: boolean;
  setOpen: (open: boolean) => void;
  onPause: (minutes: number | null, note?: string) => void;
  onStop: () => void;
  /** With several profiles: pause them all (until resumed). */
  onPauseAll: (() => void) | null;
}) {
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemsRef = useRef<(HTMLButtonElement | null)[]>([]);
  const [custom, setCustom] = useState(false);

  useEffect(() => {
    if (open && !custom) itemsRef.current[0]?.focus();
  }, [open, custom]);

  const close = (refocus = true) => {
    setOpen(false);
    setCustom(false);
    if (refocus) buttonRef.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      const root = buttonRef.current?.parentElement;
      if (root && !root.contains(event.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  });

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = itemsRef.current.filter((i): i is HTMLButtonElement => i !== null);
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      items[(index + step + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (event.key === 'Tab') {
      close(false);
    }
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="button split-toggle"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label="More ways to pause"
        data-testid="pause-menu"
        onClick={() => (open ? close() : setOpen(true))}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        <span aria-hidden="true">▾</span>
      </button>
      {open && !custom ? (
        <div className="menu" role="menu" id={menuId} aria-label="Pause" onKeyDown={onMenuKey}>
          {PRESETS.map((preset, i) => (
            <button
              key={preset.label}
              ref={(el) => {
                itemsRef.current[i] = el;
              }}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className="menu-item"
              onClick={() => onPause(preset.minutes)}
            >
              {preset.label}
            </button>
          ))}
          <button
            ref={(el) => {
              itemsRef.current[PRESETS.length] = el;
            }}
            type="button"
            role="menuitem"
            tabIndex={-1}
            className="menu-item"
            onClick={() => setCustom(true)}
          >
            Pause for…
          </button>
          {onPauseAll ? (
            <button
              ref={(el) => {
                itemsRef.current[PRESETS.length + 1] = el;
              }}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className="menu-item"
              data-testid="pause-all"
              onClick={onPauseAll}
            >
              Pause every profile
            </button>
          ) : null}
          <button
            ref={(el) => {
              itemsRef.current[PRESETS.length + 2] = el;
            }}
            type="button"
            role="menuitem"
            tabIndex={-1}
            className="menu-item"
            data-testid="stop-after-turns"
            onClick={onStop}
          >
            Stop after the running turns
          </button>
        </div>
      ) : null}
      {open && custom ? (
        <Suspense fallback={null}>
          <CustomPause onPause={onPause} onCancel={() => close()} />
        </Suspense>
      ) : null}
    </>
  );
}
