import type { EventName } from './contract';

/** A list of every `T` (and nothing else): a missing member makes the argument a type error. */
const everyOf =
  <T>() =>
  <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : never)): L =>
    list;

/**
 * The contract's event names as plain data, for code that must not carry the schemas (the
 * window's IPC bridge subscribes to each). An event added to the contract and not here
 * fails the build.
 */
export const EVENT_NAME_LIST = everyOf<EventName>()([
  'runner:status',
  'runner:snapshot',
  'profiles:changed',
  'telemetry:sample',
  'turns:update',
  'turns:transcript',
  'runner:notice',
  'log:entries',
  'settings:changed',
  'usage:update',
  'usage:notice',
  'lending:update',
  'operator:state',
  'app:update',
]);
