#!lua flags=allow-oom
--[[
  tell-workers: orders live workers of the queue (see lib/live-workers.lua) to stop claiming
  (quiet), to claim again (resume), or to run `concurrency` jobs at once (scale): the one named,
  or every worker alive now (not those that start later). Each order is stored in the worker's
  hash, numbered by its order_seq (quiet_order = "<seq>:<1|0>", scale_order = "<seq>:<n>"), where
  the worker's next heartbeat reads it back (see heartbeat.lua), and published on the control
  channel so that the worker hears it at once; a message lost on the way is obeyed at that
  heartbeat instead. Sending it again orders the same again, which changes nothing more. A scale
  below a worker's largest batch size (its batch_max) is refused, writing nothing.

  KEYS[1]  workers: the worker registry (sorted set: id scored by the time until which it is alive)
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the workers' hashes (see lib/live-workers.lua)
  ARGV[2]  controlChannel: the workers' control channel
  ARGV[3]  op: 'quiet', 'resume' or 'scale'
  ARGV[4]  concurrency: the jobs at once a scale orders ('' for quiet and resume)
  ARGV[5]  worker: the id of the one worker to tell ('' = every live worker)
  Returns: { 1, the ids told... }, or { 0, the id of a worker whose largest batch exceeds the
           concurrency, its largest batch size } (nothing written)
  Reply:   [told: number, ...ids: Array<string>]
]]
--@include lib/now.lua
--@include lib/live-workers.lua
--@include lib/due-notice.lua

local prefix, op, concurrency, only = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local now = now_ms()
local targets = {}
if only ~= '' then
  local deadline = redis.call('ZSCORE', KEYS[1], only)
  if deadline and tonumber(deadline) >= now then targets[1] = only end
else
  local entries = live_worker_entries(prefix, now)
  for i = 1, #entries, 2 do targets[#targets + 1] = entries[i] end
end

-- A hash expired in the same ms as its member is left out (an order alone would make one without a TTL).
local live = {}
for _, id in ipairs(targets) do
  if redis.call('EXISTS', worker_hash(prefix, id)) == 1 then live[#live + 1] = id end
end

if op == 'scale' then
  for _, id in ipairs(live) do
    local largest = tonumber(redis.call('HGET', worker_hash(prefix, id), 'batch_max') or '0') or 0
    if largest > tonumber(concurrency) then return { 0, id, largest } end
  end
end

local out = { 1 }
for _, id in ipairs(live) do
  local hash = worker_hash(prefix, id)
  local seq = redis.call('HINCRBY', hash, 'order_seq', 1)
  local message = { op = op, worker = id, seq = seq }
  if op == 'scale' then
    redis.call('HSET', hash, 'scale_order', seq .. ':' .. concurrency)
    message.concurrency = tonumber(concurrency)
  else
    redis.call('HSET', hash, 'quiet_order', seq .. ':' .. (op == 'quiet' and '1' or '0'))
  end
  -- Unheard (a user whose ACL rules predate the channel), it is obeyed at the next heartbeat.
  publish_courtesy(ARGV[2], cjson.encode(message))
  out[#out + 1] = id
end
return out
