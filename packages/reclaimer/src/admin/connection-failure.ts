import { isJobsError, type RedisClient } from '@jobs/core';
import { toJobsError } from '@jobs/core/internal';

/** Socket error codes, in the words an operator acts on. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is Redis running there?)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed by the server',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * Keeps the last connection error a client reports (a socket's, or a cluster node's), which says
 * more than the command that failed for it ("refused", "no such host").
 */
export function watchConnectionErrors(client: RedisClient): () => Error | undefined {
  let last: Error | undefined;
  const keep = (error: unknown): void => {
    // The latest, unless it would hide one that has a socket error code.
    const hasCode = (candidate: Error | undefined): boolean => typeof (candidate as NodeJS.ErrnoException | undefined)?.code === 'string';
    if (error instanceof Error && (hasCode(error) || !hasCode(last))) last = error;
  };
  client.on('error', keep);
  client.on('node error', keep);
  return () => last;
}

function socketReason(error: Error | undefined): string | undefined {
  if (!error) return undefined;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (REASONS[code]) return REASONS[code];
  // TLS: the socket's own message is the reason (a certificate, a protocol).
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|EPROTO)/.test(code)) return `TLS failed: ${error.message}`;
  // A cluster client reports its seeds failing as a whole, without the socket's reason.
  const lastNodeError = (error as { lastNodeError?: Error }).lastNodeError;
  if (lastNodeError) return socketReason(lastNodeError) ?? 'no node of the cluster accepted a connection';
  return undefined;
}

/**
 * One line that says why a command failed, without a stack, a password or a client library's
 * option names: Redis unreachable (and why), refused credentials, a missing permission.
 */
export function describeFailure(error: unknown, where: string, connectionError: Error | undefined, commandTimeoutMs: number): string {
  const mapped = toJobsError(error);
  if (isJobsError(mapped, 'JOBS_REDIS_UNAVAILABLE')) {
    const cause = (mapped.cause as Error | undefined)?.message ?? mapped.message;
    const reason = socketReason(connectionError) ?? (/timed out/i.test(cause) ? `no answer within ${commandTimeoutMs / 1_000} s` : 'the connection was lost');
    return `cannot reach Redis at ${where}: ${reason}`;
  }
  if (isJobsError(mapped)) return mapped.message;
  return mapped instanceof Error ? mapped.message : String(mapped);
}
