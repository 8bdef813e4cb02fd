import type { IncomingMessage } from 'node:http';
import type { Logger } from '@jobs/core';
import { toJobsError } from '@jobs/core/internal';
import { LABEL_PATTERN, type DashboardRole } from './credentials.ts';
import { HttpError } from './http-io.ts';
import type { DashboardSession } from './sessions.ts';

/** Who a request comes from: the role it acts with, and the label the audit trail records. */
export interface DashboardCaller {
  readonly role: DashboardRole;
  readonly label: string;
}

/** What a request wants to do, as the `authorize` hook is asked. */
export interface DashboardAccess {
  /** `read` for every API read (the session, the overview, lists, a job, the audit trail); else the action: `retry`, `cancel`, `purge`, `pause`, `bulk`... */
  readonly action: string;
  /** The queue acted on or read (absent for the session and the overview, which are every queue's). */
  readonly queue?: string;
  /** The job acted on, for a per-job action. */
  readonly id?: string;
  /** The kind a pause or resume acts on. */
  readonly kind?: string;
  /** The count the operator confirmed (`expected`), for an action that takes one. */
  readonly count?: number;
  /** The token session the request carries, when the dashboard has tokens too and the caller signed in with one. */
  readonly session?: DashboardCaller;
}

/** The `authorize` hook's answer: who the caller is and that it may, or that it may not. */
export type DashboardAuthorization = { readonly allow: true; readonly role: DashboardRole; readonly label: string } | { readonly allow: false };

/**
 * A team's own check of every API request (behind an SSO proxy, say): given the `node:http`
 * request and what it wants, it says who the caller is and whether it may. Sync or async. A
 * caller it names `viewer` may still only read: its actions are refused with 403 `read_only`.
 */
export type DashboardAuthorize = (request: IncomingMessage, access: DashboardAccess) => DashboardAuthorization | Promise<DashboardAuthorization>;

/** Asks whether the request may do `access`, and who it comes from; throws the HTTP answer when not. */
export type AccessCheck = (access: Omit<DashboardAccess, 'session'>) => Promise<DashboardCaller>;

/** The label of the sessions a dashboard with an `authorize` hook gives browsers for their CSRF token alone: no token's label (those are never empty). */
export const HOOK_SESSION_LABEL = '';

function refuseActionOf(caller: DashboardCaller, action: string): void {
  if (action !== 'read' && caller.role !== 'operator') throw new HttpError(403, 'read_only', 'a viewer cannot act on jobs or queues: sign in with the operator token');
}

/**
 * The access check of one request: by its token session's role, or, with a hook, by the hook's
 * answer (it is told of a token session the request carries). A hook that throws, or answers
 * something else than {@link DashboardAuthorization} with a valid role and label, gives 500
 * `authorize_failed`, its error logged and never sent.
 */
export function accessCheck(options: { hook: DashboardAuthorize | undefined; request: IncomingMessage; session: DashboardSession; log: Logger }): AccessCheck {
  const { hook, request, session, log } = options;
  const signedIn = session.label === HOOK_SESSION_LABEL ? undefined : { role: session.role, label: session.label };
  return async (access) => {
    if (!hook) {
      const caller = signedIn as DashboardCaller;
      refuseActionOf(caller, access.action);
      return caller;
    }
    let answer: DashboardAuthorization;
    try {
      answer = await hook(request, { ...access, ...(signedIn && { session: signedIn }) });
    } catch (error) {
      // Typed first, as every logged error here: a raw Redis error from the hook carries its command's arguments.
      log.error({ err: toJobsError(error), action: access.action }, 'dashboard authorize hook failed');
      throw new HttpError(500, 'authorize_failed', 'the dashboard could not check this request; see its logs');
    }
    if (answer?.allow === false) throw new HttpError(403, 'forbidden', 'refused by this dashboard\'s authorization');
    if (answer?.allow !== true || (answer.role !== 'operator' && answer.role !== 'viewer') || typeof answer.label !== 'string' || !LABEL_PATTERN.test(answer.label)) {
      log.error({ action: access.action }, 'dashboard authorize hook answered neither { allow: false } nor { allow: true, role: operator|viewer, label }');
      throw new HttpError(500, 'authorize_failed', 'the dashboard could not check this request; see its logs');
    }
    const caller = { role: answer.role, label: answer.label };
    refuseActionOf(caller, access.action);
    return caller;
  };
}
