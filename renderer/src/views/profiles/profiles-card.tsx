import { useId, useState } from 'react';
import { DEFAULT_PROFILE_ID, SUPPORTED_CONNECTOR_KINDS, type ConnectorKind, type ProfileSummary } from '../../../../shared/profiles';
import { trayIconFor } from '../../../../shared/status';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { selectProfile } from '../../store/sync';
import { ConfirmDialog } from '../common/confirm-dialog';
import { ErrorLine } from '../common/error-line';
import { useCommand, type CommandState } from '../common/use-command';
import { planeHost, profileStateWord } from './profile-text';
import './profiles.css';

const CONNECTOR_LABELS: Record<ConnectorKind, string> = { rost: 'Rost Forge', sechroom: 'Sechroom Work Layer' };

/**
 * The host's runner profiles: one runner identity against one control plane each. Add a
 * profile (it starts unpaired, with the default profile's settings), rename one, or
 * remove one that is unpaired. The settings below are the chosen profile's.
 */
export function ProfilesCard() {
  const profiles = useHostStore((s) => s.profiles);
  const current = useHostStore((s) => s.profile);
  const titleId = useId();
  return (
    <section className="card profiles-card" aria-labelledby={titleId} data-testid="profiles-card">
      <h2 id={titleId}>Profiles</h2>
      <p className="hint">
        Each profile is this machine lent to one control plane under its own identity, pairing, pause and settings. The turns of all of them share this
        computer's limit.
      </p>
      <ul className="profiles-rows">
        {profiles.map((profile) => (
          <ProfileRow key={profile.id} profile={profile} current={profile.id === current} />
        ))}
      </ul>
      <AddProfileForm />
    </section>
  );
}

function ProfileRow({ profile, current }: { profile: ProfileSummary; current: boolean }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(profile.name);
  const [removing, setRemoving] = useState(false);
  const rename = useCommand('profiles:rename');
  const remove = useCommand('profiles:remove');
  const removable = profile.id !== DEFAULT_PROFILE_ID;
  const paired = profile.runnerId !== null;
  return (
    <li className={current ? 'profile-row profile-row-current' : 'profile-row'} data-testid="profile-row" data-profile={profile.id}>
      <span className={`state-dot state-dot-small state-${trayIconFor(profile.status)}`} aria-hidden="true" />
      {editing ? (
        <RenameForm profile={profile} name={name} setName={setName} rename={rename} onDone={() => setEditing(false)} />
      ) : (
        <span className="profile-row-name">
          <strong>{profile.name}</strong>
          <span className="muted">
            {' '}
            · {CONNECTOR_LABELS[profile.connector]} · {planeHost(profile)} · {profileStateWord(profile.status)}
          </span>
        </span>
      )}
      {!editing ? (
        <RowButtons
          profile={profile}
          current={current}
          removable={removable}
          paired={paired}
          removing={remove.pending}
          onRename={() => setEditing(true)}
          onRemove={() => setRemoving(true)}
        />
      ) : null}
      {rename.error ? <ErrorLine error={rename.error} /> : null}
      {remove.error ? <ErrorLine error={remove.error} testId="profile-remove-error" /> : null}
      <ConfirmDialog
        open={removing}
        title={`Remove the profile ${profile.name}?`}
        confirmLabel="Remove profile"
        destructive
        busy={remove.pending}
        onCancel={() => setRemoving(false)}
        onConfirm={() => {
          void remove.run({ profile: profile.id }).then(async (result) => {
            setRemoving(false);
            if (result.ok && current) await selectProfile(getBridge(), DEFAULT_PROFILE_ID);
          });
        }}
      >
        <p>
          Its settings and everything this machine kept for it, its turn history among them, are deleted. The control plane is not told: the profile is unpaired
          already.
        </p>
      </ConfirmDialog>
    </li>
  );
}

interface RenameProps {
  profile: ProfileSummary;
  name: string;
  setName: (name: string) => void;
  rename: CommandState<'profiles:rename'>;
  onDone: () => void;
}

/** The row's name as a field, saved on Enter or Save; Cancel puts the old name back. */
function RenameForm({ profile, name, setName, rename, onDone }: RenameProps) {
  return (
    <form
      className="profile-rename"
      onSubmit={(event) => {
        event.preventDefault();
        void rename.run({ profile: profile.id, name }).then((result) => {
          if (result.ok) onDone();
        });
      }}
    >
      <input
        className="input"
        aria-label={`New name for ${profile.name}`}
        value={name}
        maxLength={60}
        autoFocus
        data-testid="profile-rename-input"
        onChange={(event) => setName(event.target.value)}
      />
      <button type="submit" className="button button-small button-primary" disabled={rename.pending || name.trim() === ''}>
        Save
      </button>
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          onDone();
          setName(profile.name);
          rename.clearError();
        }}
      >
        Cancel
      </button>
    </form>
  );
}

interface RowButtonsProps {
  profile: ProfileSummary;
  current: boolean;
  removable: boolean;
  paired: boolean;
  /** A removal is on its way. */
  removing: boolean;
  onRename: () => void;
  onRemove: () => void;
}

/** Show (unless it is the one shown), Rename, and Remove for a profile that is not the default. */
function RowButtons({ profile, current, removable, paired, removing, onRename, onRemove }: RowButtonsProps) {
  return (
    <span className="button-row">
      {current ? (
        <span className="muted">Shown</span>
      ) : (
        <button type="button" className="button button-small" onClick={() => void selectProfile(getBridge(), profile.id)}>
          Show
        </button>
      )}
      <button type="button" className="button button-small" data-testid="profile-rename" onClick={onRename}>
        Rename
      </button>
      {removable ? (
        <button
          type="button"
          className="button button-small button-danger"
          data-testid="profile-remove"
          disabled={paired || removing}
          title={paired ? 'Unpair it first (Pairing), so the control plane knows it is gone.' : undefined}
          onClick={onRemove}
        >
          Remove…
        </button>
      ) : null}
    </span>
  );
}

function AddProfileForm() {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [connector, setConnector] = useState<ConnectorKind>('rost');
  const add = useCommand('profiles:add');
  const id = useId();
  if (!open) {
    return (
      <button type="button" className="button" data-testid="profile-add" onClick={() => setOpen(true)}>
        Add a profile…
      </button>
    );
  }
  return (
    <form
      className="profile-add"
      data-testid="profile-add-form"
      onSubmit={(event) => {
        event.preventDefault();
        void add.run({ name, connector, ...(url.trim() ? { controlPlaneUrl: url.trim() } : {}) }).then(async (result) => {
          if (!result.ok) return;
          setOpen(false);
          setName('');
          setUrl('');
          // A new profile is unpaired: show it, so pairing is the next click.
          await selectProfile(getBridge(), result.value.id);
        });
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          className="input"
          value={name}
          maxLength={60}
          autoFocus
          data-testid="profile-add-name"
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <ConnectorField id={`${id}-connector`} connector={connector} setConnector={setConnector} />
      <div className="field">
        <label htmlFor={`${id}-url`}>Address</label>
        <input
          id={`${id}-url`}
          className="input mono"
          inputMode="url"
          spellCheck={false}
          placeholder="Same as the default profile"
          value={url}
          data-testid="profile-add-url"
          onChange={(event) => setUrl(event.target.value)}
        />
      </div>
      {add.error ? <ErrorLine error={add.error} testId="profile-add-error" /> : null}
      <div className="button-row">
        <button
          type="button"
          className="button"
          onClick={() => {
            setOpen(false);
            add.clearError();
          }}
        >
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={add.pending || name.trim() === ''} data-testid="profile-add-save">
          Add profile
        </button>
      </div>
    </form>
  );
}

function ConnectorField({ id, connector, setConnector }: { id: string; connector: ConnectorKind; setConnector: (kind: ConnectorKind) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>Control plane</label>
      <select id={id} className="input" value={connector} onChange={(event) => setConnector(event.target.value as ConnectorKind)}>
        {SUPPORTED_CONNECTOR_KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {CONNECTOR_LABELS[kind]}
          </option>
        ))}
      </select>
    </div>
  );
}
