/**
 * The host's machine-wide cap on turns at once (sessions/machine-slots.ts), as one
 * Sechroom profile's loop takes part in it: a slot before each claim, given back as soon
 * as the claim brings nothing or the task ends, so Rost and Sechroom profiles share it.
 */
export interface MachineSlotPort {
  /** The slot's release (a second call does nothing), or null when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<(() => void) | null>;
  /** Whether a slot would be granted at once. */
  free(): boolean;
}

/** Said while the loop waits for a slot of the machine. */
export const MACHINE_FULL =
  'this machine already runs its most turns at once (Settings: Turns at once on this machine); the next task is claimed when one ends';

export interface MachineSlot {
  release(): void;
  /** None was free at once: what was checked before the wait (pause, admission) may have changed since. */
  waited: boolean;
}

/** A slot of the machine (always one without a cap); `onWait` is told when none is free at once. Null when `signal` aborts first. */
export async function takeMachineSlot(machine: MachineSlotPort | undefined, signal: AbortSignal, onWait: () => void): Promise<MachineSlot | null> {
  if (!machine) return { release: () => undefined, waited: false };
  const waited = !machine.free();
  if (waited) onWait();
  const release = await machine.acquire(signal);
  return release ? { release, waited } : null;
}
