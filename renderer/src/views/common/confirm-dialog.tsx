import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in plain words: the operator reads this before the one question. */
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  destructive?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks once before a destructive action. A native modal <dialog>: the browser traps
 * focus, Escape cancels, and focus returns to the button that opened it.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const { open, onCancel } = props;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const onCancelEvent = (event: Event) => {
      event.preventDefault();
      onCancel();
    };
    dialog.addEventListener('cancel', onCancelEvent);
    return () => dialog.removeEventListener('cancel', onCancelEvent);
  }, [onCancel]);

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} aria-describedby={bodyId}>
      {open ? (
        <>
          <h2 id={titleId} className="dialog-title">
            {props.title}
          </h2>
          <div id={bodyId} className="dialog-body">
            {props.children}
          </div>
          <div className="dialog-actions">
            <button type="button" className="button" onClick={props.onCancel} autoFocus>
              {props.cancelLabel ?? 'Cancel'}
            </button>
            <button
              type="button"
              className={props.destructive ? 'button button-danger' : 'button button-primary'}
              onClick={props.onConfirm}
              disabled={props.busy}
            >
              {props.confirmLabel}
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
