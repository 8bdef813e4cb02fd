/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM) of its hash tag, the part between the
 * first `{` and the next `}` when that part is not empty, or else of the whole key, modulo 16384.
 * Tests use it to pick keys for given slots without asking a server about each candidate.
 */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}

/** One key per hash slot, all 16384 of them: `keys[slot]` hashes to `slot`. */
export function keyForEverySlot(): string[] {
  const keys: Array<string | undefined> = new Array(16_384);
  let found = 0;
  for (let tag = 0; found < 16_384; tag += 1) {
    const key = `{${tag}}:key`;
    const slot = hashSlot(key);
    if (keys[slot] === undefined) {
      keys[slot] = key;
      found += 1;
    }
  }
  return keys as string[];
}
