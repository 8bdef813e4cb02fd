import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { urlWithUser } from './cluster-url.ts';

/** The user of a run with `JOBS_TEST_SCRIPTS=eval`. */
const USER = 'jobs-scripts-only';

/**
 * Makes (or resets) a user on the server at `url` that may do everything but FCALL and FUNCTION,
 * and returns `url` with that user's credentials: @jobs clients on it cannot read the function
 * library back (FUNCTION LIST) and run every script through EVALSHA, the path of servers and
 * users without functions. One server only: a cluster would need the user on every node.
 */
export async function scriptsOnlyUrl(url: string): Promise<string> {
  const password = randomBytes(12).toString('hex');
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  try {
    await admin.connect();
    await admin.acl('SETUSER', USER, 'reset', 'on', `>${password}`, '~*', '&*', '+@all', '-fcall', '-fcall_ro', '-function');
  } finally {
    admin.disconnect();
  }
  return urlWithUser(url, USER, password);
}
