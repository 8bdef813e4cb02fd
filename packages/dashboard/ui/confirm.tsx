// The confirmation dialog: says what an action will do and to how many jobs; for destructive
// actions the operator types the queue's name to go on.

import { useEffect, useRef, useState } from 'preact/hooks';
import { confirmation, type ConfirmRequest } from './state.ts';

export function ConfirmDialog() {
  const [request, setRequest] = useState<ConfirmRequest | null>(confirmation.get());
  const [typed, setTyped] = useState('');
  const [value, setValue] = useState('');
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => confirmation.subscribe(setRequest), []);
  useEffect(() => {
    if (!request || !dialog.current) return;
    setTyped('');
    setValue(request.number ? String(request.number.initial) : '');
    dialog.current.returnValue = '';
    if (!dialog.current.open) dialog.current.showModal();
  }, [request]);
  const number = Number(value);
  const numberOk = !request?.number || (value.trim() !== '' && Number.isSafeInteger(number));
  const ok = (request?.typed === undefined || typed === request.typed) && numberOk;
  const onClose = (): void => {
    const answer = dialog.current?.returnValue === 'ok' && ok;
    const open = confirmation.get();
    confirmation.set(null);
    open?.resolve(answer ? { ok: true, ...(open.number && { value: number }) } : { ok: false });
  };
  return (
    <dialog id="confirm" ref={dialog} onClose={onClose}>
      <form method="dialog">
        <p id="confirm-text">{request?.text}</p>
        {request?.typed !== undefined && (
          <p id="confirm-typed">
            <label>
              Type <strong id="confirm-name">{request.typed}</strong> to confirm{' '}
              <input id="confirm-input" autocomplete="off" spellcheck={false} value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
            </label>
          </p>
        )}
        {request?.number && (
          <p>
            <label>
              {request.number.label}{' '}
              <input id="confirm-number" type="number" step="1" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
            </label>
          </p>
        )}
        <div class="dialog-buttons">
          <button value="cancel" type="submit">
            Cancel
          </button>
          <button id="confirm-ok" value="ok" type="submit" class="danger" disabled={!ok}>
            {request?.okLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
