import { useId, type ReactNode } from 'react';
import { SETTING_LABELS, type SettingKey } from '../../../../shared/settings';
import { FIELD_HINTS, FIELD_KIND, FIELD_WARNINGS, SELECT_OPTIONS } from './settings-form';

export interface SettingFieldProps {
  name: SettingKey;
  value: string | boolean;
  /** The message to show under the field (inline check or the host's answer). */
  error: string | null;
  /** Set by an env variable or flag: shown, not editable, with where it comes from. */
  overriddenBy: string | null;
  onChange: (value: string | boolean) => void;
  /** A fact from the host shown under the hint (e.g. which secret store is really in use). */
  note?: ReactNode;
}

/** One labelled setting with its hint and, when it is wrong, the shared schema's message. */
export function SettingField({ name, value, error, overriddenBy, onChange, note }: SettingFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const warningId = `${id}-warning`;
  const kind = FIELD_KIND[name];
  const warning = FIELD_WARNINGS[name]?.(value) ?? null;
  const describedBy = [hintId, warning ? warningId : null, error ? errorId : null].filter(Boolean).join(' ');
  const common = {
    id,
    name,
    'aria-describedby': describedBy,
    'aria-invalid': error ? true : undefined,
    'data-testid': `setting-${name}`,
  } as const;

  const control = <SettingControl common={common} name={name} kind={kind} value={value} locked={overriddenBy !== null} onChange={onChange} />;

  return (
    <div className={`field field-${kind}${overriddenBy ? ' field-overridden' : ''}`}>
      <label htmlFor={id}>{SETTING_LABELS[name]}</label>
      {control}
      <p id={hintId} className="hint">
        {overriddenBy ? (
          <span data-testid={`override-${name}`}>
            Set by <code>{overriddenBy}</code> when the host started; change it there.
          </span>
        ) : (
          FIELD_HINTS[name]
        )}
        {note ? <> {note}</> : null}
      </p>
      {warning ? (
        <p id={warningId} className="field-warning" role="note" data-testid={`warning-${name}`}>
          {warning}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error" data-testid={`error-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

interface ControlProps {
  common: { id: string; name: SettingKey; 'aria-describedby': string; 'aria-invalid': true | undefined; 'data-testid': string };
  name: SettingKey;
  kind: (typeof FIELD_KIND)[SettingKey];
  value: string | boolean;
  /** Overridden by an env variable or flag: not editable. */
  locked: boolean;
  onChange: (value: string | boolean) => void;
}

/** The input a setting's kind calls for: a checkbox, a select, or a text or number field. */
function SettingControl({ common, name, kind, value, locked, onChange }: ControlProps) {
  if (kind === 'toggle') {
    return <input {...common} type="checkbox" className="checkbox" checked={value === true} disabled={locked} onChange={(e) => onChange(e.target.checked)} />;
  } else if (kind === 'select') {
    return (
      <select {...common} className="input" value={String(value)} disabled={locked} onChange={(e) => onChange(e.target.value)}>
        {(SELECT_OPTIONS[name] ?? []).map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else {
    return (
      <input
        {...common}
        className={kind === 'url' ? 'input mono' : 'input'}
        type={kind === 'number' ? 'number' : 'text'}
        inputMode={kind === 'number' ? 'numeric' : kind === 'url' ? 'url' : undefined}
        spellCheck={false}
        autoComplete="off"
        readOnly={locked}
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
}
