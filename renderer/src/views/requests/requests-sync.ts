import { useEffect, useLayoutEffect, useRef } from 'react';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { loadOperator } from './requests-actions';
import { setOperator } from './requests-store';

/**
 * Keeps the operator status current: a pull whenever the connection to the host opens,
 * then the `operator:state` events the core pushes (sign-in progress, sign-out, expiry).
 */
export function useOperatorSync(): void {
  const connected = useHostStore((s) => s.connection.state === 'open');
  useEffect(() => {
    if (!connected) return;
    void loadOperator();
    return getBridge().onEvents((events) => {
      for (const e of events) if (e.event === 'operator:state') setOperator(e.payload);
    });
  }, [connected]);
}

/**
 * Runs `pull` now, every `everyMs` while the page is visible, and at once when the window
 * gains focus or becomes visible again. A setTimeout chain: never two pulls in flight.
 * A new `key` (e.g. another request) starts over with a pull at once.
 */
export function usePolling(pull: (() => Promise<void>) | null, everyMs: number, key: string = ''): void {
  const latest = useRef(pull);
  useLayoutEffect(() => {
    latest.current = pull;
  });
  const enabled = pull !== null;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let running = false;
    let stopped = false;
    const schedule = () => {
      if (timer !== null) clearTimeout(timer);
      timer = stopped || document.visibilityState === 'hidden' ? null : setTimeout(() => void tick(), everyMs);
    };
    const tick = async () => {
      if (running || stopped) return;
      running = true;
      try {
        await latest.current?.();
      } finally {
        running = false;
        schedule();
      }
    };
    const onWake = () => {
      if (document.visibilityState !== 'hidden') void tick();
      else schedule();
    };
    void tick();
    window.addEventListener('focus', onWake);
    document.addEventListener('visibilitychange', onWake);
    return () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      window.removeEventListener('focus', onWake);
      document.removeEventListener('visibilitychange', onWake);
    };
  }, [enabled, everyMs, key]);
}
