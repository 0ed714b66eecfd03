import type { ProfileSummary } from '../../../../shared/profiles';
import type { RunnerStatus } from '../../../../shared/status';

/** A profile's state in a word or two, for the switcher (the header says the whole line). */
export function profileStateWord(status: RunnerStatus): string {
  switch (status.state) {
    case 'unpaired':
      return 'Not paired';
    case 'pairing':
      return 'Pairing';
    case 'idle':
      return 'Idle';
    case 'working':
      return `Working ${status.active}/${status.limit}`;
    case 'paused':
      return 'Paused';
    case 'draining':
      return 'Stopping';
    case 'offline':
      return 'Offline';
    case 'revoked':
      return 'Revoked';
    case 'error':
      return 'Error';
  }
}

/** The control plane's host, for telling two profiles of the same name apart. */
export function planeHost(profile: ProfileSummary): string {
  try {
    return new URL(profile.controlPlaneUrl).host;
  } catch {
    return profile.controlPlaneUrl;
  }
}

/** The profile's name for a row of a list that mixes profiles (the Turns view). */
export function profileName(profiles: readonly ProfileSummary[], id: string | undefined): string {
  const key = id ?? 'default';
  return profiles.find((p) => p.id === key)?.name ?? key;
}
