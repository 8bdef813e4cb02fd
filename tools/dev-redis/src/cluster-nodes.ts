/** A slot range a master owns, both ends included. */
export type SlotRange = readonly [start: number, end: number];

/** One node as a cluster member sees it: a line of its `CLUSTER NODES` reply. */
export interface ClusterNodeEntry {
  readonly id: string;
  /** Client port; 0 when the member does not know the node's address yet. */
  readonly port: number;
  readonly role: 'master' | 'replica';
  /** The member has marked the node failed (flag `fail`; a mere suspicion, `fail?`, is not). */
  readonly failed: boolean;
  /** This line is the member itself. */
  readonly myself: boolean;
  /** For a replica: the id of its master. */
  readonly masterId: string | undefined;
  /** For a master: the slots it serves. */
  readonly slots: readonly SlotRange[];
}

/**
 * Parses a `CLUSTER NODES` reply. Each line reads
 * `<id> <ip:port@busport[,hostname]> <flags> <master-id|-> <ping> <pong> <epoch> <link> <slots...>`.
 */
export function parseClusterNodes(reply: string): ClusterNodeEntry[] {
  const entries: ClusterNodeEntry[] = [];
  for (const line of reply.split('\n')) {
    const [id, address, flags, master, , , , , ...slotFields] = line.trim().split(' ');
    if (id === undefined || address === undefined || flags === undefined || master === undefined) continue;
    const flagList = flags.split(',');
    const port = Number(/:(\d+)@/.exec(address)?.[1] ?? 0);
    entries.push({
      id,
      port,
      role: flagList.includes('master') ? 'master' : 'replica',
      failed: flagList.includes('fail'),
      myself: flagList.includes('myself'),
      masterId: master === '-' ? undefined : master,
      slots: slotFields.flatMap(parseSlotField),
    });
  }
  return entries;
}

function parseSlotField(field: string): SlotRange[] {
  // `[slot->-id]` and `[slot-<-id]` are slots being migrated: not owned by this line's node yet.
  if (field.startsWith('[')) return [];
  const [start, end = start] = field.split('-');
  return [[Number(start), Number(end)]];
}
