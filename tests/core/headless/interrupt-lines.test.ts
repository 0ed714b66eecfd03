import { expect, it } from 'vitest';
import type { Interrupt } from '../../../main/core/quit-policy';
import { interruptHandler } from '../../../main/headless/interrupt-lines';

it('each Ctrl-C says on the terminal what the quit does, and one during the final stop exits', () => {
  const answers: Interrupt[] = [
    { kind: 'drain', active: 2, limitMs: 300_000 },
    { kind: 'still-draining', active: 1, remainingMs: 120_000 },
    { kind: 'now' },
    { kind: 'stopping' },
  ];
  const lines: string[] = [];
  const exits: number[] = [];
  const stop = interruptHandler({ interrupt: () => answers.shift()!, out: { write: (t: string) => lines.push(t) }, exit: (c) => exits.push(c) });
  for (let i = 0; i < 4; i++) stop('SIGINT');
  expect(lines).toEqual([
    'Stopping (SIGINT): waiting for 2 running turn(s), up to 5 min. Press Ctrl-C again within 3 s to stop now.\n',
    'Still waiting for 1 running turn(s), up to 2 min. Press Ctrl-C again within 3 s to stop now.\n',
    'Stopping now: canceling running turns.\n',
  ]);
  expect(exits).toEqual([130]);
});
