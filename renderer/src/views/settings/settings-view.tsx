import { useEffect, useMemo, useRef, useState } from 'react';
import type { SettingsView as SettingsViewData } from '../../../../shared/contract';
import { isProfileSetting } from '../../../../shared/profiles';
import type { SettingKey } from '../../../../shared/settings';
import { useHostStore } from '../../store';
import { ConfirmDialog } from '../common/confirm-dialog';
import { ErrorLine } from '../common/error-line';
import { ProfilesCard } from '../profiles/profiles-card';
import { useCommand } from '../common/use-command';
import { SechroomCard } from './sechroom-card';
import { SecretStoreInUse } from './secret-store-in-use';
import { SettingField } from './setting-field';
import { changedKeys, checkField, draftFrom, patchOf, SECTIONS, type Draft } from './settings-form';
import './settings.css';

/**
 * Every runner setting, checked as you type with the core's own messages, saved together
 * through settings:update. Fields set by an env variable or flag are shown read-only.
 */
export function SettingsView() {
  const view = useHostStore((s) => s.settings);
  const profile = useHostStore((s) => s.profile);
  const sechroom = useHostStore((s) => s.profiles.find((p) => p.id === s.profile)?.connector === 'sechroom');
  return (
    <div className="view settings" data-testid="view-settings">
      <ProfilesCard />
      {sechroom ? <SechroomCard key={profile} profile={profile} /> : null}
      {view ? <SettingsForm key={profile} view={view} /> : <p className="empty">Waiting for the host…</p>}
    </div>
  );
}

function SettingsForm({ view }: { view: SettingsViewData }) {
  const several = useHostStore((s) => s.profiles.length > 1);
  const profileName = useHostStore((s) => s.profiles.find((p) => p.id === s.profile)?.name ?? null);
  const [draft, setDraft] = useState<Draft>(() => draftFrom(view.settings));
  const [touched, setTouched] = useState<Set<SettingKey>>(new Set());
  const [serverErrors, setServerErrors] = useState<Partial<Record<SettingKey, string>>>({});
  const [saved, setSaved] = useState(false);
  const update = useCommand('settings:update');
  const challenge = useCommand('settings:widening-challenge');
  // The change the host would not take without the operator's confirmation (it widens what a turn can reach).
  const [widening, setWidening] = useState<{ patch: Record<string, unknown>; message: string } | null>(null);
  const overridden = useMemo(() => new Map(view.overridden.map((o) => [o.key, o.source])), [view.overridden]);
  const base = useRef(view.settings);

  // Someone else changed the settings (another tab, the tray): take the new values for
  // every field this form has not been editing.
  useEffect(() => {
    if (base.current === view.settings) return;
    const fresh = draftFrom(view.settings);
    setDraft((current) => {
      const next = { ...current };
      for (const key of Object.keys(fresh) as SettingKey[]) if (!touched.has(key)) next[key] = fresh[key];
      return next;
    });
    base.current = view.settings;
  }, [view.settings, touched]);

  const dirty = changedKeys(draft, view.settings).filter((key) => !overridden.has(key));
  const invalid = dirty.filter((key) => !checkField(key, draft[key]).ok);

  const setField = (key: SettingKey, value: string | boolean) => {
    setDraft((current) => ({ ...current, [key]: value }));
    setTouched((current) => new Set(current).add(key));
    setServerErrors(({ [key]: _dropped, ...rest }) => rest);
    setSaved(false);
  };

  const errorFor = (key: SettingKey): string | null => {
    if (serverErrors[key]) return serverErrors[key];
    if (!touched.has(key)) return null;
    const checked = checkField(key, draft[key]);
    return checked.ok ? null : checked.error.message;
  };

  const submit = async () => {
    if (dirty.length === 0 || invalid.length > 0) return;
    await send(patchOf(draft, dirty));
  };

  const send = async (patch: Record<string, unknown>) => {
    const result = await update.run(patch);
    if (!result.ok && result.error.code === 'confirm_widening') {
      update.clearError();
      setWidening({ patch, message: result.error.message });
      return;
    }
    if (result.ok) {
      setDraft(draftFrom(result.value.settings));
      setTouched(new Set());
      setServerErrors({});
      setSaved(true);
      base.current = result.value.settings;
      useHostStore.setState({ settings: result.value });
    } else if (result.error.field && result.error.field in draft) {
      setServerErrors({ [result.error.field as SettingKey]: result.error.message });
    }
  };

  /** The operator confirmed in this window: the host gives this window session a one-time value for the change. */
  const confirmWidening = async () => {
    if (!widening) return;
    const nonce = await challenge.run(undefined);
    const patch = widening.patch;
    setWidening(null);
    if (nonce.ok) await send({ ...patch, confirmWidening: nonce.value.nonce });
  };

  const formError = (update.error && !(update.error.field && update.error.field in draft) ? update.error : null) ?? challenge.error ?? null;
  return (
    <form
      className="settings-form"
      data-testid="settings-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {view.warnings.map((warning) => (
        <p key={warning} className="callout callout-warn">
          {warning}
        </p>
      ))}
      {several && profileName ? (
        <p className="hint" data-testid="settings-scope">
          Settings of <strong>{profileName}</strong>. Those marked “every profile” are this computer’s and apply to all profiles.
        </p>
      ) : null}
      <div className="settings-grid">
        {SECTIONS.map((section) => (
          <fieldset key={section.title} className="card fieldset">
            <legend>{section.title}</legend>
            {section.keys.map((key) => (
              <SettingField
                key={key}
                name={key}
                value={draft[key]}
                error={errorFor(key)}
                overriddenBy={overridden.get(key) ?? null}
                onChange={(value) => setField(key, value)}
                note={<FieldNote name={key} several={several} secretBackend={String(view.settings.secretBackend)} />}
              />
            ))}
          </fieldset>
        ))}
      </div>
      <div className="save-bar">
        <span className="save-status" role="status" data-testid="settings-status">
          {invalid.length > 0
            ? `Fix ${invalid.length === 1 ? 'the field' : `${invalid.length} fields`} marked above to save.`
            : dirty.length > 0
              ? `${dirty.length} unsaved change${dirty.length === 1 ? '' : 's'}.`
              : saved
                ? 'Saved.'
                : 'All changes saved.'}
        </span>
        {formError ? <ErrorLine error={formError} testId="settings-error" /> : null}
        <button
          type="button"
          className="button"
          disabled={dirty.length === 0}
          onClick={() => {
            setDraft(draftFrom(view.settings));
            setTouched(new Set());
            setServerErrors({});
            update.clearError();
          }}
        >
          Discard
        </button>
        <button
          type="submit"
          className="button button-primary"
          disabled={dirty.length === 0 || invalid.length > 0 || update.pending}
          data-testid="settings-save"
        >
          {update.pending ? 'Saving…' : 'Save changes'}
        </button>
      </div>
      <ConfirmDialog
        open={widening !== null}
        title="Let turns reach more of this computer?"
        confirmLabel="Turn it on"
        destructive
        busy={challenge.pending || update.pending}
        onCancel={() => setWidening(null)}
        onConfirm={() => void confirmWidening()}
      >
        <p data-testid="widening-message">{widening?.message}</p>
        <p>
          A task's prompt can steer what a turn does. With this on, turns can use what you add here (your own claude/codex settings and their MCP servers and
          hooks, or more of your environment variables). The change is recorded in the log.
        </p>
      </ConfirmDialog>
    </form>
  );
}

/** What is said under a field besides its hint: the secret store in use, and, with several profiles, a setting they share. */
function FieldNote({ name, several, secretBackend }: { name: SettingKey; several: boolean; secretBackend: string }) {
  const shared = several && !isProfileSetting(name);
  if (name !== 'secretBackend' && !shared) return null;
  return (
    <>
      {shared ? (
        <span className="scope-note" data-testid={`scope-${name}`}>
          Every profile.
        </span>
      ) : null}
      {name === 'secretBackend' ? <SecretStoreInUse chosen={secretBackend} /> : null}
    </>
  );
}
