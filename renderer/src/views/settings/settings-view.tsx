import { useEffect, useMemo, useRef, useState } from 'react';
import type { SettingsView as SettingsViewData } from '../../../../shared/contract';
import { isProfileSetting } from '../../../../shared/profiles';
import type { SettingKey } from '../../../../shared/settings';
import { useHostStore } from '../../store';
import { ConfirmDialog } from '../common/confirm-dialog';
import { ErrorLine } from '../common/error-line';
import { ProfilesCard } from '../profiles/profiles-card';
import { useCommand } from '../common/use-command';
import { DiagnosticsCard } from './diagnostics-card';
import { ScheduleCard } from './schedule-card';
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
      <DiagnosticsCard />
    </div>
  );
}

function SettingsForm({ view }: { view: SettingsViewData }) {
  const several = useHostStore((s) => s.profiles.length > 1);
  const profileName = useHostStore((s) => s.profiles.find((p) => p.id === s.profile)?.name ?? null);
  const form = useSettingsDraft(view);
  const { draft, dirty, invalid, saved, overridden, setDraft, setTouched, setServerErrors, errorFor, setField } = form;
  const { update, challenge, widening, setWidening, submit, confirmWidening, formError } = useSettingsSave(form);
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
        <ScheduleCard
          draft={draft}
          errorFor={errorFor}
          overriddenBy={(key) => overridden.get(key) ?? null}
          setField={setField}
          noteFor={(key) => <FieldNote name={key} several={several} secretBackend={String(view.settings.secretBackend)} />}
        />
      </div>
      <SaveBar
        invalid={invalid.length}
        dirty={dirty.length}
        saved={saved}
        formError={formError}
        pending={update.pending}
        onDiscard={() => {
          setDraft(draftFrom(view.settings));
          setTouched(new Set());
          setServerErrors({});
          update.clearError();
        }}
      />
      <WideningDialog
        widening={widening}
        busy={challenge.pending || update.pending}
        onCancel={() => setWidening(null)}
        onConfirm={() => void confirmWidening()}
      />
    </form>
  );
}

/** The form's values, what was touched, the host's field errors, and what differs from the saved settings. */
function useSettingsDraft(view: SettingsViewData) {
  const [draft, setDraft] = useState<Draft>(() => draftFrom(view.settings));
  const [touched, setTouched] = useState<Set<SettingKey>>(new Set());
  const [serverErrors, setServerErrors] = useState<Partial<Record<SettingKey, string>>>({});
  const [saved, setSaved] = useState(false);
  const overridden = useMemo(() => new Map(view.overridden.map((o) => [o.key, o.source])), [view.overridden]);
  const baseRef = useRef(view.settings);

  // Someone else changed the settings (another tab, the tray): take the new values for
  // every field this form has not been editing.
  useEffect(() => {
    if (baseRef.current === view.settings) return;
    const fresh = draftFrom(view.settings);
    setDraft((current) => {
      const next = { ...current };
      for (const key of Object.keys(fresh) as SettingKey[]) if (!touched.has(key)) next[key] = fresh[key];
      return next;
    });
    baseRef.current = view.settings;
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
  return { draft, dirty, invalid, saved, overridden, baseRef, setDraft, setTouched, setServerErrors, setSaved, errorFor, setField };
}

/** Saving the draft through settings:update, with the operator's confirmation when the change widens what a turn can reach. */
function useSettingsSave({ draft, dirty, invalid, baseRef, setDraft, setTouched, setServerErrors, setSaved }: ReturnType<typeof useSettingsDraft>) {
  const update = useCommand('settings:update');
  const challenge = useCommand('settings:widening-challenge');
  // The change the host would not take without the operator's confirmation (it widens what a turn can reach).
  const [widening, setWidening] = useState<{ patch: Record<string, unknown>; message: string } | null>(null);

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
      baseRef.current = result.value.settings;
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
  return { update, challenge, widening, setWidening, submit, confirmWidening, formError };
}

function SaveBar({
  invalid,
  dirty,
  saved,
  formError,
  pending,
  onDiscard,
}: {
  invalid: number;
  dirty: number;
  saved: boolean;
  formError: Parameters<typeof ErrorLine>[0]['error'] | null;
  pending: boolean;
  onDiscard: () => void;
}) {
  return (
    <div className="save-bar">
      <span className="save-status" role="status" data-testid="settings-status">
        {invalid > 0
          ? `Fix ${invalid === 1 ? 'the field' : `${invalid} fields`} marked above to save.`
          : dirty > 0
            ? `${dirty} unsaved change${dirty === 1 ? '' : 's'}.`
            : saved
              ? 'Saved.'
              : 'All changes saved.'}
      </span>
      {formError ? <ErrorLine error={formError} testId="settings-error" /> : null}
      <button type="button" className="button" disabled={dirty === 0} onClick={onDiscard}>
        Discard
      </button>
      <button type="submit" className="button button-primary" disabled={dirty === 0 || invalid > 0 || pending} data-testid="settings-save">
        {pending ? 'Saving…' : 'Save changes'}
      </button>
    </div>
  );
}

function WideningDialog({
  widening,
  busy,
  onCancel,
  onConfirm,
}: {
  widening: { message: string } | null;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      open={widening !== null}
      title="Let turns reach more of this computer?"
      confirmLabel="Turn it on"
      destructive
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p data-testid="widening-message">{widening?.message}</p>
      <p>
        A task's prompt can steer what a turn does. With this on, turns can use what you add here (your own claude/codex settings and their MCP servers and
        hooks, or more of your environment variables). The change is recorded in the log.
      </p>
    </ConfirmDialog>
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
