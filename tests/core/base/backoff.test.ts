import { describe, expect, it } from 'vitest';
import { backoffDelay, jittered } from '../../../main/core/base/backoff';

const policy = { baseMs: 1_000, capMs: 60_000 };
/** A deterministic stand-in for Math.random over [0, 1). */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('backoffDelay', () => {
  it('stays in [base/2, min(cap, base·2^n)] for every attempt and every draw', () => {
    const random = seeded(7);
    for (let attempt = 0; attempt < 40; attempt++) {
      const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(attempt, policy, random);
        expect(delay).toBeGreaterThanOrEqual(policy.baseMs / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('reaches both ends of the window: the floor at random 0, the ceiling just below random 1', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(0, policy, () => 0.999_999)).toBe(1_000);
    expect(backoffDelay(3, policy, () => 0.999_999)).toBe(8_000);
    expect(backoffDelay(100, policy, () => 0.999_999)).toBe(60_000);
    expect(backoffDelay(100, policy, () => 0)).toBe(500);
  });

  it('never exceeds the cap, even for absurd attempt numbers, and treats a negative attempt as the first', () => {
    expect(backoffDelay(10_000, policy, () => 0.5)).toBeLessThanOrEqual(60_000);
    expect(backoffDelay(-5, policy, () => 0.999_999)).toBe(1_000);
  });

  it('keeps the floor under a cap lower than base/2', () => {
    expect(backoffDelay(0, { baseMs: 1_000, capMs: 200 }, () => 0)).toBe(200);
    expect(backoffDelay(5, { baseMs: 1_000, capMs: 200 }, () => 0.9)).toBe(200);
  });

  it('spreads a fleet out: many runners failing together do not retry at one instant', () => {
    const random = seeded(42);
    const delays = new Set(Array.from({ length: 100 }, () => backoffDelay(5, policy, random)));
    expect(delays.size).toBeGreaterThan(80);
  });
});

describe('jittered', () => {
  it('stays within ±fraction of the period', () => {
    const random = seeded(3);
    for (let i = 0; i < 500; i++) {
      const value = jittered(30_000, 0.1, random);
      expect(value).toBeGreaterThanOrEqual(27_000);
      expect(value).toBeLessThanOrEqual(33_000);
    }
    expect(jittered(30_000, 0.1, () => 0)).toBe(27_000);
    expect(jittered(30_000, 0.1, () => 0.5)).toBe(30_000);
  });
});
