import { trayIconFor } from '../../../../shared/status';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { selectProfile } from '../../store/sync';
import { planeHost, profileStateWord } from './profile-text';

/**
 * One button per profile, each with its state, above the status line: which runner the
 * window shows, and at a glance how the others are. Shown only when the host holds more
 * than one profile (profiles are added in Settings), so a single runner looks as before.
 */
export function ProfileSwitcher() {
  const profiles = useHostStore((s) => s.profiles);
  const current = useHostStore((s) => s.profile);
  if (profiles.length < 2) return null;
  return (
    <nav className="profile-bar" aria-label="Profiles" data-testid="profile-switcher">
      <ul className="profile-list">
        {profiles.map((profile) => (
          <li key={profile.id}>
            <button
              type="button"
              className={profile.id === current ? 'profile-chip profile-chip-current' : 'profile-chip'}
              aria-current={profile.id === current ? 'true' : undefined}
              title={`${profile.name} · ${planeHost(profile)} · ${profile.status.reason}`}
              data-testid="profile-chip"
              data-profile={profile.id}
              onClick={() => void selectProfile(getBridge(), profile.id)}
            >
              <span className={`state-dot state-dot-small state-${trayIconFor(profile.status)}`} aria-hidden="true" />
              <span className="profile-chip-name">{profile.name}</span>
              <span className="profile-chip-state" data-testid="profile-chip-state">
                {profileStateWord(profile.status)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
