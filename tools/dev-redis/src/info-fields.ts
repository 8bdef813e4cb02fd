/**
 * Reads one `field:value` line of an INFO-style reply (`INFO`, `CLUSTER INFO`); `undefined` when
 * the reply has no such field.
 */
export function infoField(reply: string, field: string): string | undefined {
  for (const line of reply.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon) === field) return line.slice(colon + 1);
  }
  return undefined;
}
