/** A node a cluster client starts from. */
export interface ClusterSeed {
  readonly host: string;
  readonly port: number;
}

/** What a `redis+cluster://` URL says. */
export interface ParsedClusterUrl {
  readonly seeds: ClusterSeed[];
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/i;

/** True for a `redis+cluster://` or `rediss+cluster://` URL, the form @jobs opens a Cluster for. */
export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(url);
}

/**
 * Reads `redis+cluster://[user[:password]@]host:port,host:port...` (`rediss+cluster://` for
 * TLS). The tests' own reading, so @jobs/testing need not depend on @jobs/core (which tests
 * with it); core's parser is tested on its own.
 */
export function parseClusterUrl(url: string): ParsedClusterUrl {
  const match = CLUSTER_URL.exec(url);
  if (!match) throw new Error(`not a redis+cluster://host:port,... URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  const [, scheme = '', credentials, hosts = ''] = match;
  const seeds = hosts.split(',').map((seed) => {
    const seedMatch = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(seed.trim());
    if (!seedMatch) throw new Error(`cluster seed "${seed}" is not host:port`);
    return { host: (seedMatch[1] ?? '').replace(/^\[|\]$/g, ''), port: Number(seedMatch[2]) };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    username = decodeURIComponent(colon === -1 ? credentials : credentials.slice(0, colon)) || undefined;
    password = colon === -1 ? undefined : decodeURIComponent(credentials.slice(colon + 1));
  }
  return { seeds, username, password, tls: scheme.toLowerCase() === 'rediss' };
}

/**
 * `url` with an ACL user and password in it, for a test that connects as a user of its own:
 * `redis://user:pass@host:port` or `redis+cluster://user:pass@host:port,...` (which `new URL`
 * cannot read). Credentials already in `url` are replaced.
 */
export function urlWithUser(url: string, username: string, password: string): string {
  const credentials = `${encodeURIComponent(username)}:${encodeURIComponent(password)}@`;
  if (isClusterUrl(url)) return url.replace(/^(rediss?\+cluster:\/\/)(?:[^@/]*@)?/i, `$1${credentials}`);
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(username);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
