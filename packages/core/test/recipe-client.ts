import { randomBytes } from 'node:crypto';
import type { TestRedis } from '@jobs/testing';

/**
 * A client of the redis.io job-queue recipe, written from the seed pages' description with
 * raw commands: the way a Python, PHP, Go or Java port of the recipe touches the keys. Used to
 * prove that @jobs and recipe clients work on one queue, both ways. (The recipe's keys are
 * `queue:<name>:*`; started with the name `{NAME}` they are exactly ours.)
 */
export class RecipeClient {
  readonly #redis: TestRedis;
  readonly #prefix: string;

  constructor(redis: TestRedis, queueName: string) {
    this.#redis = redis;
    this.#prefix = `queue:{${queueName}}:`;
  }

  #key(id: string): string {
    return `${this.#prefix}job:${id}`;
  }

  /** Enqueue as the PHP/Python ports do: HSET the six initial fields, then LPUSH the id. */
  async enqueue(payload: Record<string, unknown>): Promise<string> {
    const id = randomBytes(8).toString('hex');
    await this.#redis
      .multi()
      .hset(this.#key(id), { id, payload: JSON.stringify(payload), status: 'pending', attempts: '0', enqueued_at_ms: String(Date.now()), claim_token: '' })
      .lpush(`${this.#prefix}pending`, id)
      .exec();
    return id;
  }

  /** The first half of the recipe's claim: the blocking move, with no stamp yet. */
  async move(timeoutSeconds = 0.5): Promise<string | null> {
    return this.#redis.blmove(`${this.#prefix}pending`, `${this.#prefix}processing`, 'RIGHT', 'LEFT', timeoutSeconds);
  }

  /** The second half: stamp status, claimed_at_ms (client clock) and a token; bump attempts. */
  async stamp(id: string): Promise<{ id: string; token: string; attempts: number; payload: unknown }> {
    const token = randomBytes(8).toString('hex');
    await this.#redis.hset(this.#key(id), { status: 'processing', claimed_at_ms: String(Date.now()), claim_token: token });
    const attempts = await this.#redis.hincrby(this.#key(id), 'attempts', 1);
    const hash = await this.#redis.hgetall(this.#key(id));
    return { id, token, attempts, payload: JSON.parse(hash.payload ?? '{}') };
  }

  /** The recipe's claim: move, then stamp. */
  async claim(): Promise<{ id: string; token: string; attempts: number; payload: unknown } | null> {
    const id = await this.move();
    return id === null ? null : this.stamp(id);
  }

  /** The recipe's token-checked complete, as its Lua script describes it (returns 1 or 0). */
  async complete(job: { id: string; token: string }, result: unknown): Promise<number> {
    const script = `
      local key = KEYS[1] .. ARGV[1]
      if redis.call('HGET', key, 'claim_token') ~= ARGV[2] then return 0 end
      redis.call('LREM', KEYS[2], 1, ARGV[1])
      redis.call('HSET', key, 'status', 'completed', 'completed_at_ms', ARGV[3], 'result', ARGV[4])
      redis.call('EXPIRE', key, 300)
      redis.call('LPUSH', KEYS[3], ARGV[1])
      redis.call('LTRIM', KEYS[3], 0, 49)
      return 1`;
    const ok = (await this.#redis.eval(script, 3, `${this.#prefix}job:`, `${this.#prefix}processing`, `${this.#prefix}completed`, job.id, job.token, String(Date.now()), JSON.stringify(result))) as number;
    if (ok === 1) await this.#redis.publish(`${this.#prefix}events`, JSON.stringify({ id: job.id, status: 'completed' }));
    return ok;
  }

  /**
   * The recipe's reclaimStuck, as its Lua script describes it: every id in processing whose
   * claim is older than the visibility (claimed_at_ms, on the caller's clock), or that was never
   * stamped and was enqueued over twice the visibility ago, goes back to pending (LPUSH) with
   * its token cleared. Returns the ids it reclaimed.
   */
  async reclaimStuck(visibilityMs: number): Promise<string[]> {
    const script = `
      local now, visibility = tonumber(ARGV[1]), tonumber(ARGV[2])
      local reclaimed = {}
      for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
        local key = KEYS[3] .. id
        local claimed_at = tonumber(redis.call('HGET', key, 'claimed_at_ms')) or 0
        local enqueued_at = tonumber(redis.call('HGET', key, 'enqueued_at_ms')) or 0
        if (claimed_at > 0 and now - claimed_at > visibility)
          or (claimed_at == 0 and enqueued_at > 0 and now - enqueued_at > 2 * visibility) then
          redis.call('LREM', KEYS[2], 1, id)
          redis.call('LPUSH', KEYS[1], id)
          redis.call('HSET', key, 'status', 'pending', 'reclaimed_at_ms', ARGV[1], 'claim_token', '', 'claimed_at_ms', 0)
          reclaimed[#reclaimed + 1] = id
        end
      end
      return reclaimed`;
    return (await this.#redis.eval(script, 3, `${this.#prefix}pending`, `${this.#prefix}processing`, `${this.#prefix}job:`, String(Date.now()), String(visibilityMs))) as string[];
  }
}
