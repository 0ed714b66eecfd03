import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedUnit } from '../../../../shared/protocol';
import { ResumeCache, resumeKey } from '../../../../main/core/planes/rost/resume-cache';
import { RunnerStateStore } from '../../../../main/core/runner/runner-state-store';

const unit = (patch: Partial<ClaimedUnit> = {}): ClaimedUnit => ({
  id: 'u1',
  prompt: '',
  seat: { id: 'seat-1' },
  user_id: 'user-1',
  session_id: 'sess-1',
  ...patch,
});

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function cache(now = () => Date.parse('2026-12-07T10:00:00.000Z')) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-resume-'));
  dirs.push(dir);
  const state = new RunnerStateStore(path.join(dir, 'state.json'));
  await state.load();
  return { state, cache: new ResumeCache(state, now), file: path.join(dir, 'state.json') };
}

describe('resumeKey: one conversation per tenant, seat, user and session', () => {
  it('names the conversation from the seat, user and session of the unit', () => {
    expect(resumeKey('t1', unit())).toBe('t1:seat:seat-1:user:user-1:session:sess-1:claude');
  });

  it('takes the seat from the charter and the session from aicos when the unit has no seat or session of its own', () => {
    const u = unit({ seat: null, charter_ref: { seat_id: 'seat-c' }, session_id: null, aicos: { session_id: 'sess-a' } });
    expect(resumeKey('t1', u)).toBe('t1:seat:seat-c:user:user-1:session:sess-a:claude');
    // The unit's own seat and session win over the charter's and aicos'.
    expect(resumeKey('t1', unit({ charter_ref: { seat_id: 'seat-c' }, aicos: { session_id: 'sess-a' } }))).toBe(
      't1:seat:seat-1:user:user-1:session:sess-1:claude',
    );
  });

  it('has no key when any part is missing', () => {
    expect(resumeKey(null, unit())).toBeNull();
    expect(resumeKey('', unit())).toBeNull();
    expect(resumeKey('t1', unit({ seat: null }))).toBeNull();
    expect(resumeKey('t1', unit({ user_id: null }))).toBeNull();
    expect(resumeKey('t1', unit({ session_id: undefined }))).toBeNull();
  });
});

describe('ResumeCache over the runner state', () => {
  it('remembers a session id under its key, with when, on disk, and forgets it', async () => {
    const { cache: c, state, file } = await cache();
    await c.remember('k1', 'claude-abc');
    expect(c.get('k1')).toBe('claude-abc');
    expect(state.get().runtimeSessions).toEqual({ k1: { claude_session_id: 'claude-abc', updated_at: '2026-12-07T10:00:00.000Z' } });
    expect(JSON.parse(readFileSync(file, 'utf8')).runtimeSessions.k1.claude_session_id).toBe('claude-abc');
    await c.remember('k2', 'claude-def');
    await c.forget('k1');
    expect(c.get('k1')).toBeNull();
    expect(Object.keys(state.get().runtimeSessions)).toEqual(['k2']);
  });

  it('does nothing without a key, and writes nothing to forget what it does not hold', async () => {
    const { cache: c, state, file } = await cache();
    await c.remember(null, 'claude-abc');
    expect(c.get(null)).toBeNull();
    expect(state.get().runtimeSessions).toEqual({});
    await c.forget('never-kept');
    await c.forget(null);
    expect(() => readFileSync(file)).toThrow();
  });
});
