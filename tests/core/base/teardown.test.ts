import { describe, expect, it } from 'vitest';
import { Teardown } from '../../../main/core/base/teardown';

describe('Teardown: the core stops in the reverse order it was built', () => {
  it('runs each step once, newest first, and every caller waits for the same run', async () => {
    const order: string[] = [];
    const teardown = new Teardown();
    teardown.add('logging', () => void order.push('logging'));
    teardown.add('executor', async () => {
      await Promise.resolve();
      order.push('executor');
    });
    teardown.add('host', () => void order.push('host'));
    const first = teardown.run();
    const second = teardown.run();
    expect(second).toBe(first);
    await first;
    expect(order).toEqual(['host', 'executor', 'logging']);
  });

  it('a step that throws is reported and the steps after it still run', async () => {
    const order: string[] = [];
    const errors: string[] = [];
    const teardown = new Teardown((name, error) => errors.push(`${name}: ${String(error)}`));
    teardown.add('logging', () => void order.push('logging'));
    teardown.add('usage', () => Promise.reject(new Error('disk gone')));
    await teardown.run();
    expect(order).toEqual(['logging']);
    expect(errors).toEqual(['usage: Error: disk gone']);
  });

  it('refuses a step added while it runs', async () => {
    const teardown = new Teardown();
    const run = teardown.run();
    expect(() => teardown.add('late', () => {})).toThrow(/already running/);
    await run;
  });
});
