// What every view shares: the session, the message line, and the confirmation dialog's request.

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError } from './api.ts';
import type { Session } from './types.ts';

/** The signed-in session, read once when the page starts. */
export const SessionContext = createContext<Session | null>(null);

/** The session (views render only once it is read). */
export function useSession(): Session {
  return useContext(SessionContext) as Session;
}

/** True when the session may act (an operator). */
export function useOperator(): boolean {
  return useSession().role === 'operator';
}

/** A message for the message line. */
export interface Message {
  readonly text: string;
  readonly tone: 'ok' | 'error';
}

type Listener<T> = (value: T) => void;

function store<T>(initial: T) {
  let value = initial;
  const listeners = new Set<Listener<T>>();
  return {
    get: () => value,
    set(next: T) {
      value = next;
      for (const listener of listeners) listener(value);
    },
    subscribe(listener: Listener<T>) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** The message line's text. */
export const messages = store<Message | null>(null);

/** Shows a message (an action's outcome, or why it was refused). */
export function say(text: string, tone: Message['tone'] = 'ok'): void {
  messages.set({ text, tone });
}

/** Shows why a request failed. */
export function sayError(error: unknown): void {
  say(error instanceof ApiError ? error.message : `the dashboard did not answer (${String(error)})`, 'error');
}

/** What the confirmation dialog asks. */
export interface ConfirmRequest {
  readonly text: string;
  readonly okLabel: string;
  /** A name the operator must type to go on (destructive actions). */
  readonly typed?: string;
  /** A number the operator gives (a new priority), with its label. */
  readonly number?: { readonly label: string; readonly initial: number };
  readonly resolve: (answer: { ok: boolean; value?: number }) => void;
}

/** The dialog's open request, if any. */
export const confirmation = store<ConfirmRequest | null>(null);

/** Asks the operator to confirm; resolves with whether they did (and the number they gave). */
export function confirmAction(request: Omit<ConfirmRequest, 'resolve'>): Promise<{ ok: boolean; value?: number }> {
  return new Promise((resolve) => confirmation.set({ ...request, resolve }));
}
