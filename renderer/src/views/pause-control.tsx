import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { useHostStore } from '../store';
import { isPaired } from '../store/runner-slice';
import { ErrorLine } from './common/error-line';
import { useCommand } from './common/use-command';

// The menu and the form for a number of minutes are seldom opened: loaded then, not with the first view.
const PauseMenuItems = lazy(async () => ({ default: (await import('./pause-menu-items')).PauseMenuItems }));
const CustomPause = lazy(async () => ({ default: (await import('./pause-custom')).CustomPause }));

/** The host's quit, whichever profile is shown: the turns it waits for, in every profile. */
function useHostDrain(): { draining: boolean; waiting: boolean; elsewhere: string | null } {
  const status = useHostStore((s) => s.runner.status);
  const shown = useHostStore((s) => s.profile);
  const profiles = useHostStore((s) => s.profiles);
  const draining = profiles.filter((p) => p.status.state === 'draining');
  if (status?.state !== 'draining' && draining.length === 0) return { draining: false, waiting: false, elsewhere: null };
  const stoppingNow = (status?.state === 'draining' && status.mode === 'now') || draining.some((p) => p.status.state === 'draining' && p.status.mode === 'now');
  const remaining = (p: (typeof profiles)[number]) => (p.status.state === 'draining' ? p.status.remaining : 0);
  const others = draining.filter((p) => p.id !== shown && remaining(p) > 0);
  const own = status?.state === 'draining' ? status.remaining : 0;
  const waiting = !stoppingNow && own + others.reduce((n, p) => n + remaining(p), 0) > 0;
  const count = others.reduce((n, p) => n + remaining(p), 0);
  const elsewhere = waiting && others.length > 0 ? `Waiting for ${count} turn${count === 1 ? '' : 's'} in ${others.map((p) => p.name).join(', ')}` : null;
  return { draining: true, waiting, elsewhere };
}

/**
 * One click to pause (until resumed) or resume; the arrow beside Pause opens a small
 * menu for a timed pause. Pausing stops claiming new work; running turns finish. While the
 * host quits (a Ctrl-C, the tray) every profile shows Keep running and Stop now.
 */
export function PauseControl() {
  const paired = useHostStore((s) => isPaired(s.runner.snapshot));
  const drain = useHostDrain();
  if (drain.draining) return <QuitControls waiting={drain.waiting} elsewhere={drain.elsewhere} />;
  if (!paired) return null;
  return <PauseButtons />;
}

/** The host is quitting: it waits for the running turns (the status line says how long). */
function QuitControls({ waiting, elsewhere }: { waiting: boolean; elsewhere: string | null }) {
  const quit = useCommand('runner:quit');
  return (
    <div className="pause-control">
      {elsewhere ? (
        <span className="muted" data-testid="quit-elsewhere">
          {elsewhere}
        </span>
      ) : null}
      {waiting ? (
        <>
          <button type="button" className="button" data-testid="quit-cancel" disabled={quit.pending} onClick={() => void quit.run({ mode: 'cancel' })}>
            Keep running
          </button>
          <button type="button" className="button button-danger" data-testid="quit-now" disabled={quit.pending} onClick={() => void quit.run({ mode: 'now' })}>
            Stop now
          </button>
        </>
      ) : null}
      {quit.error ? <ErrorLine error={quit.error} /> : null}
    </div>
  );
}

function PauseButtons() {
  const paused = useHostStore((s) => s.runner.snapshot?.paused != null);
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
  const fromMenu = (then: () => void) => {
    setMenuOpen(false);
    then();
  };
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
            onPause={(minutes, note) => fromMenu(() => doPause(minutes, note))}
            onStop={() => fromMenu(() => void quit.run({ mode: 'after-turns' }))}
            onPauseAll={
              several
                ? () =>
                    fromMenu(() => {
                      focusNext.current = 'resume';
                      void pauseAll.run({ minutes: null });
                    })
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
  const [custom, setCustom] = useState(false);

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
        <Suspense fallback={null}>
          <PauseMenuItems id={menuId} onPause={onPause} onCustom={() => setCustom(true)} onPauseAll={onPauseAll} onStop={onStop} onClose={close} />
        </Suspense>
      ) : null}
      {open && custom ? (
        <Suspense fallback={null}>
          <CustomPause onPause={onPause} onCancel={() => close()} />
        </Suspense>
      ) : null}
    </>
  );
}
