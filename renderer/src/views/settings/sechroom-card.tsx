import { useEffect, useId, useState, type FormEvent } from 'react';
import type { SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import { getBridge } from '../../bridge/instance';
import { ConfirmDialog } from '../common/confirm-dialog';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';
import {
  changedSechroomKeys,
  SANDBOX_OPTIONS,
  SECHROOM_SECTIONS,
  sechroomDraftFrom,
  sechroomErrors,
  sechroomInputOf,
  type SechroomDraft,
  type SechroomField,
} from './sechroom-form';

/**
 * The "Sechroom instance" card of a Sechroom profile: its Work Layer and executor instance,
 * checked as you type with the core's schema, saved through `sechroom:configure` (the
 * executor starts again with them). No token is ever here: only where the credential comes from.
 */
export function SechroomCard({ profile }: { profile: string }) {
  const [view, setView] = useState<SechroomSettingsView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void getBridge()
      .invoke('sechroom:get', { profile })
      .then((result) => {
        if (!live) return;
        if (result.ok) setView(result.value);
        else setLoadError(result.error.message);
      });
    return () => {
      live = false;
    };
  }, [profile]);
  return (
    <section className="card sechroom-card" aria-labelledby="sechroom-card-title" data-testid="sechroom-card">
      <h2 id="sechroom-card-title">Sechroom instance</h2>
      {view ? (
        <SechroomForm profile={profile} view={view} onSaved={setView} />
      ) : loadError ? (
        <p className="field-error">{loadError}</p>
      ) : (
        <p className="empty">Reading this profile’s Sechroom settings…</p>
      )}
    </section>
  );
}

function Credential({ view }: { view: SechroomSettingsView }) {
  const { credential, signedIn } = view;
  const account = view.config?.account ?? 'default';
  if (credential.source === 'env') {
    return (
      <p className="hint" data-testid="sechroom-credential">
        {credential.note ?? 'Token from SECHROOM_TOKEN.'} The token stays in the host and is never shown here.
      </p>
    );
  }
  return (
    <div className="hint" data-testid="sechroom-credential">
      <p>
        {signedIn
          ? `Signed in to the Work Layer as account “${account}” (tokens in this computer’s secret store).`
          : 'Not signed in: sign this profile in to the Work Layer (Pairing tab) once its settings are saved.'}
      </p>
      {credential.note ? <p data-testid="sechroom-credential-note">{credential.note}</p> : null}
    </div>
  );
}

function SechroomForm({ profile, view, onSaved }: { profile: string; view: SechroomSettingsView; onSaved: (view: SechroomSettingsView) => void }) {
  const saved = sechroomDraftFrom(view.config);
  const [draft, setDraft] = useState<SechroomDraft>(saved);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [showAll, setShowAll] = useState(false);
  const [serverError, setServerError] = useState<{ field: string; message: string } | null>(null);
  const [done, setDone] = useState(false);
  const configure = useCommand('sechroom:configure');
  const challenge = useCommand('settings:widening-challenge');
  // The host asks the operator to confirm a sandbox that lets turns reach more (danger-full-access).
  const [widening, setWidening] = useState<string | null>(null);

  const errors = sechroomErrors(draft);
  const invalid = Object.keys(errors).length > 0;
  const dirty = view.config === null || changedSechroomKeys(draft, saved).length > 0;
  const errorFor = (key: string): string | null =>
    serverError?.field === key ? serverError.message : showAll || touched.has(key) ? (errors[key] ?? null) : null;

  const setField = (key: string, value: string | boolean) => {
    setDraft((current) => ({ ...current, [key]: value }));
    setTouched((current) => new Set(current).add(key));
    setServerError(null);
    setDone(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setShowAll(true);
    if (invalid || !dirty) return;
    await send();
  };

  const send = async (confirmWidening?: string) => {
    const result = await configure.run({ profile, ...sechroomInputOf(draft), ...(confirmWidening ? { confirmWidening } : {}) });
    if (!result.ok && result.error.code === 'confirm_widening') {
      configure.clearError();
      setWidening(result.error.message);
      return;
    }
    if (!result.ok) {
      if (result.error.field) setServerError({ field: result.error.field, message: result.error.message });
      return;
    }
    const fresh = await getBridge().invoke('sechroom:get', { profile });
    if (fresh.ok) {
      setDraft(sechroomDraftFrom(fresh.value.config));
      setTouched(new Set());
      setShowAll(false);
      setDone(true);
      onSaved(fresh.value);
    }
  };

  const confirmWidening = async () => {
    setWidening(null);
    const nonce = await challenge.run(undefined);
    if (nonce.ok) await send(nonce.value.nonce);
  };

  const formError = (configure.error && !configure.error.field ? configure.error : null) ?? challenge.error ?? null;
  return (
    <form className="settings-form sechroom-form" data-testid="sechroom-form" noValidate onSubmit={(event) => void submit(event)}>
      <SechroomFormHead view={view} />
      <SechroomSections draft={draft} errorFor={errorFor} setField={setField} />
      <SechroomSaveBar invalid={showAll && invalid} dirty={dirty} unset={view.config === null} done={done} formError={formError} pending={configure.pending} />
      <SechroomWideningDialog
        message={widening}
        busy={challenge.pending || configure.pending}
        onCancel={() => setWidening(null)}
        onConfirm={() => void confirmWidening()}
      />
    </form>
  );
}

/** Where the credential comes from, a saved configuration that cannot be used, and what saving does. */
function SechroomFormHead({ view }: { view: SechroomSettingsView }) {
  return (
    <>
      <Credential view={view} />
      {view.problem ? <p className="callout callout-warn">The saved settings cannot be used: {view.problem}</p> : null}
      <p className="hint" data-testid="sechroom-restart">
        Saving restarts this profile’s executor with the new settings (it registers again); a task already running goes on.
      </p>
    </>
  );
}

function SechroomSections({
  draft,
  errorFor,
  setField,
}: {
  draft: SechroomDraft;
  errorFor: (key: string) => string | null;
  setField: (key: string, value: string | boolean) => void;
}) {
  return (
    <div className="settings-grid">
      {SECHROOM_SECTIONS.map((section) => (
        <fieldset key={section.title} className="card fieldset">
          <legend>{section.title}</legend>
          {section.fields.map((field) => (
            <SechroomInput key={field.key} field={field} value={draft[field.key] ?? ''} error={errorFor(field.key)} onChange={(v) => setField(field.key, v)} />
          ))}
        </fieldset>
      ))}
    </div>
  );
}

function SechroomSaveBar({
  invalid,
  dirty,
  unset,
  done,
  formError,
  pending,
}: {
  invalid: boolean;
  dirty: boolean;
  unset: boolean;
  done: boolean;
  formError: Parameters<typeof ErrorLine>[0]['error'] | null;
  pending: boolean;
}) {
  return (
    <div className="save-bar">
      <span className="save-status" role="status" data-testid="sechroom-status">
        {invalid
          ? 'Fix the fields marked above to save.'
          : dirty
            ? unset
              ? 'Not set yet.'
              : 'Unsaved changes.'
            : done
              ? 'Saved; the executor started again with them.'
              : 'All changes saved.'}
      </span>
      {formError ? <ErrorLine error={formError} testId="sechroom-error" /> : null}
      <button type="submit" className="button button-primary" disabled={!dirty || pending} data-testid="sechroom-save">
        {pending ? 'Saving…' : 'Save Sechroom settings'}
      </button>
    </div>
  );
}

function SechroomWideningDialog({
  message,
  busy,
  onCancel,
  onConfirm,
}: {
  message: string | null;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      open={message !== null}
      title="Let turns run without codex's sandbox?"
      confirmLabel="Turn it on"
      destructive
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p data-testid="sechroom-widening-message">{message}</p>
      <p>With danger-full-access, the commands a task's model runs are not confined by codex. The change is recorded in the log.</p>
    </ConfirmDialog>
  );
}

function SechroomInput({
  field,
  value,
  error,
  onChange,
}: {
  field: SechroomField;
  value: string | boolean;
  error: string | null;
  onChange: (v: string | boolean) => void;
}) {
  const id = useId();
  const testId = `sechroom-${field.key}`;
  const common = {
    id,
    name: field.key,
    'aria-describedby': `${id}-hint${error ? ` ${id}-error` : ''}`,
    'aria-invalid': error ? true : undefined,
    'data-testid': testId,
  } as const;
  const control =
    field.kind === 'toggle' ? (
      <input {...common} type="checkbox" className="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
    ) : field.kind === 'select' ? (
      <select {...common} className="input" value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {SANDBOX_OPTIONS.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    ) : (
      <input
        {...common}
        className={field.kind === 'url' ? 'input mono' : 'input'}
        type="text"
        inputMode={field.kind === 'number' ? 'decimal' : field.kind === 'url' ? 'url' : undefined}
        spellCheck={false}
        autoComplete="off"
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  return (
    <div className={`field field-${field.kind === 'list' || field.kind === 'url' ? 'text' : field.kind}`}>
      <label htmlFor={id}>{field.label}</label>
      {control}
      <p id={`${id}-hint`} className="hint">
        {field.hint}
      </p>
      {error ? (
        <p id={`${id}-error`} className="field-error" data-testid={`${testId}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
