import { describe, expect, it } from 'vitest';
import { commands, events } from '../../shared/contract';
import { DEFAULT_PROFILE_ID, ProfileIdSchema, slugOf, worstStatus } from '../../shared/profiles';
import type { RunnerStatus } from '../../shared/status';

const idle: RunnerStatus = { state: 'idle', reason: '' };
const paused: RunnerStatus = { state: 'paused', reason: '', until: null };
const working: RunnerStatus = { state: 'working', reason: '', active: 1, limit: 1 };
const revoked: RunnerStatus = { state: 'revoked', reason: '' };
const error: RunnerStatus = { state: 'error', reason: '' };
const unpaired: RunnerStatus = { state: 'unpaired', reason: '' };

describe('the profiles contract', () => {
  it('per-profile commands act on the default profile when no profile is named', () => {
    expect(commands['runner:snapshot'].input.parse(undefined)).toEqual({ profile: DEFAULT_PROFILE_ID });
    expect(commands['runner:snapshot'].input.parse({})).toEqual({ profile: DEFAULT_PROFILE_ID });
    expect(commands['runner:pause'].input.parse({ minutes: null })).toEqual({ minutes: null, profile: DEFAULT_PROFILE_ID });
    expect(commands['runner:unpair'].input.parse({ profile: 'lab' })).toEqual({ force: false, profile: 'lab' });
    expect(commands['settings:update'].input.parse({ profile: 'lab', maxSessions: 2 })).toEqual({ profile: 'lab', maxSessions: 2 });
  });

  it('refuses a profile id that is not a slug, with one message', () => {
    const r = commands['runner:resume'].input.safeParse({ profile: '../etc' });
    expect(r.success).toBe(false);
    expect(ProfileIdSchema.safeParse('Lab').error?.issues[0]?.message).toMatch(/^A profile id must be 1–40 characters/);
    expect(commands['profiles:add'].input.safeParse({ name: 'Lab', connector: 'gitlab' }).success).toBe(false);
    expect(commands['profiles:add'].input.parse({ name: ' Lab ' })).toEqual({ name: 'Lab', connector: 'rost' });
  });

  it('status events say whose they are', () => {
    expect(events['runner:status'].parse({ state: 'idle', reason: 'x', profile: 'lab' })).toEqual({ state: 'idle', reason: 'x', profile: 'lab' });
    expect(events['runner:snapshot'].shape.profile).toBeDefined();
  });

  it('makes ids from names', () => {
    expect(slugOf('Research Box #2')).toBe('research-box-2');
    expect(slugOf('  ')).toBe('');
  });

  it('the worst state wins: error > revoked > working > paused > idle > not paired', () => {
    expect(worstStatus([idle, paused])).toBe(paused);
    expect(worstStatus([paused, working, idle])).toBe(working);
    expect(worstStatus([working, revoked])).toBe(revoked);
    expect(worstStatus([revoked, error, working])).toBe(error);
    expect(worstStatus([unpaired, idle])).toBe(idle);
    expect(worstStatus([])).toBeNull();
  });
});
