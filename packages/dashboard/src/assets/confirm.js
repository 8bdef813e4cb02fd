// A confirmation dialog; for destructive actions the operator types a name to go on.

/**
 * Resolves true when the operator confirms (having typed `typed` exactly, when given).
 * @param {{ text: string, okLabel: string, typed?: string }} options
 * @returns {Promise<boolean>}
 */
export function confirmAction(options) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('confirm'));
  const input = /** @type {HTMLInputElement} */ (document.getElementById('confirm-input'));
  const ok = /** @type {HTMLButtonElement} */ (document.getElementById('confirm-ok'));
  /** @type {HTMLElement} */ (document.getElementById('confirm-text')).textContent = options.text;
  /** @type {HTMLElement} */ (document.getElementById('confirm-typed')).hidden = options.typed === undefined;
  /** @type {HTMLElement} */ (document.getElementById('confirm-name')).textContent = options.typed ?? '';
  ok.textContent = options.okLabel;
  input.value = '';
  const sync = () => {
    ok.disabled = options.typed !== undefined && input.value !== options.typed;
  };
  sync();
  input.addEventListener('input', sync);
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        input.removeEventListener('input', sync);
        resolve(dialog.returnValue === 'ok' && (options.typed === undefined || input.value === options.typed));
      },
      { once: true },
    );
  });
}

/** The text the operator typed in the last dialog. */
export function typedValue() {
  return /** @type {HTMLInputElement} */ (document.getElementById('confirm-input')).value;
}
