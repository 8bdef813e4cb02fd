#!lua
--[[
  heartbeat: a worker says it is alive, in the queue's registry (see lib/live-workers.lua): its
  hash gets the fields given and last_seen_ms (Redis time), and it and the worker's member of
  the registry live until now + ttlMs. Members already dead are trimmed, and past WORKERS_MAX
  members those nearest to expiry are evicted with their hashes, so the registry stays bounded;
  the registry itself expires with its last member. The orders stored in the hash by
  tell-workers.lua (quiet_order, scale_order, order_seq) are never written here, only read back in
  the reply, so a worker that missed an order's message obeys it now; a worker's first heartbeat
  deletes those of an earlier worker of the same id. Sending it again changes nothing more.

  KEYS[1]  workers: the worker registry (sorted set: id scored by the time until which it is alive)
  KEYS[2]  worker: this worker's hash
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the hashes of evicted workers (see lib/live-workers.lua)
  ARGV[2]  id: the worker's id
  ARGV[3]  ttlMs: how long the worker counts as alive without another heartbeat (ms)
  ARGV[4]  startedAtMs: when the worker started (ms, Redis clock), '' for now (its first heartbeat)
  ARGV[5..] fields: the hash's other fields and values: host, pid, version, kinds, concurrency,
           batch_max, quiet, running, running_count
  Returns: { now ms, the deadline ms until which the worker counts as alive, the stored quiet
           order ('' for none), the stored scale order ('' for none) }
  Reply:   [nowMs: number, aliveUntilMs: number, quietOrder: string, scaleOrder: string]
]]
--@include lib/now.lua
--@include lib/live-workers.lua

local now = now_ms()
local now_text = int_text(now)
local deadline = int_text(now + tonumber(ARGV[3]))
local started = ARGV[4]
if started == '' then
  started = now_text
  redis.call('HDEL', KEYS[2], 'order_seq', 'quiet_order', 'scale_order')
end
local fields = { 'id', ARGV[2], 'started_at_ms', started, 'last_seen_ms', now_text }
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
-- PEXPIREAT: the hash expires at the very deadline the registry scores (PEXPIRE would count from
-- Redis's clock a moment after TIME). Only commands a tenant's ACL user has (jobsctl acl).
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('PEXPIREAT', KEYS[2], deadline)
redis.call('ZADD', KEYS[1], deadline, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_text)
local excess = redis.call('ZCARD', KEYS[1]) - WORKERS_MAX
if excess > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, excess - 1)) do
    redis.call('ZREM', KEYS[1], id)
    redis.call('DEL', worker_hash(ARGV[1], id))
  end
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
local orders = redis.call('HMGET', KEYS[2], 'quiet_order', 'scale_order')
return { now, tonumber(deadline), orders[1] or '', orders[2] or '' }
