import type { KeyboardEvent } from 'react';

/**
 * Arrow keys, Home/End and PageUp/PageDown for a single-select listbox whose focus stays
 * on the list itself (aria-activedescendant), so a virtualized list can move through
 * rows that are not in the DOM yet: the caller scrolls the new row into view.
 */
export function listboxKeyHandler(options: { count: number; index: number; page?: number; select: (index: number) => void }): (event: KeyboardEvent) => void {
  return (event) => {
    const { count, index } = options;
    if (count === 0) return;
    const page = options.page ?? 10;
    const from = index < 0 ? -1 : index;
    let next: number | null = null;
    if (event.key === 'ArrowDown') next = Math.min(count - 1, from + 1);
    else if (event.key === 'ArrowUp') next = Math.max(0, from - 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = count - 1;
    else if (event.key === 'PageDown') next = Math.min(count - 1, from + page);
    else if (event.key === 'PageUp') next = Math.max(0, from - page);
    if (next === null) return;
    event.preventDefault();
    options.select(next);
  };
}
