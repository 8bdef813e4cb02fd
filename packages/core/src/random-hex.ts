import { randomFillSync } from 'node:crypto';

// Job ids and claim tokens are 8 random bytes each, as 16 hex digits (the recipe's format).
// One randomFillSync call per 512 of them instead of one per id: the same cryptographic source,
// without a system call on every enqueue and claim.
const POOL_BYTES = 4_096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** A fresh 16-hex-digit id or token. */
export function randomHex(): string {
  if (offset + 8 > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + 8);
  offset += 8;
  return hex;
}

/**
 * The random part of one claim call's tokens: 12 hex digits. The claim script appends 4 more
 * numbering the claims of the call, so every token has the recipe's 16 hex digits and two
 * claims of a job share one with odds of 1 in 2^48.
 */
export function claimTokenBase(): string {
  return randomHex().slice(0, 12);
}
