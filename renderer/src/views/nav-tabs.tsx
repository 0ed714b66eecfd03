import { useRef, type KeyboardEvent } from 'react';
import { useHostStore } from '../store';
import { navigate, ROUTES, type RouteId } from './use-route';

export const tabId = (route: RouteId) => `tab-${route}`;
export const panelId = (route: RouteId) => `panel-${route}`;

/**
 * The view switcher as WAI-ARIA tabs: one tab stop, arrow keys (and Home/End) move
 * between tabs and open the view at once; the Turns tab carries the running count.
 */
export function NavTabs({ current }: { current: RouteId }) {
  const refs = useRef(new Map<RouteId, HTMLButtonElement>());
  const running = useHostStore((s) => s.turns.active.length);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = ROUTES.findIndex((r) => r.id === current);
    const last = ROUTES.length - 1;
    const target =
      event.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (target === null) return;
    event.preventDefault();
    const route = ROUTES[target]!.id;
    navigate(route);
    refs.current.get(route)?.focus();
  };

  return (
    <div className="tabs" role="tablist" aria-label="Views" onKeyDown={onKeyDown}>
      {ROUTES.map((route) => {
        const selected = route.id === current;
        return (
          <button
            key={route.id}
            ref={(el) => {
              if (el) refs.current.set(route.id, el);
              else refs.current.delete(route.id);
            }}
            type="button"
            role="tab"
            id={tabId(route.id)}
            aria-selected={selected}
            aria-controls={panelId(route.id)}
            tabIndex={selected ? 0 : -1}
            className="tab"
            data-testid={`tab-${route.id}`}
            onClick={() => navigate(route.id)}
          >
            {route.label}
            {route.id === 'turns' && running > 0 ? (
              <span className="tab-badge">
                <span className="sr-only">, </span>
                {running}
                <span className="sr-only"> running</span>
              </span>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}
