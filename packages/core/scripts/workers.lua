#!lua flags=no-writes
--[[
  workers: the live workers of the queue's registry (see lib/live-workers.lua), each with its
  last heartbeat, read in one step with Redis time.

  KEYS[1]  workers: the worker registry (sorted set: id scored by the time until which it is alive)
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the workers' hashes (see lib/live-workers.lua)
  Returns: { now ms, then per live worker { its deadline ms, its hash's fields and values... } };
           a member whose hash is gone (expired in the same ms) is left out
  Reply:   [nowMs: number, ...workers: Array<Array<string>>]
]]
--@include lib/now.lua
--@include lib/live-workers.lua

local now = now_ms()
local out = { now }
local entries = live_worker_entries(ARGV[1], now)
for i = 1, #entries, 2 do
  local fields = redis.call('HGETALL', worker_hash(ARGV[1], entries[i]))
  if #fields > 0 then
    table.insert(fields, 1, entries[i + 1])
    out[#out + 1] = fields
  end
end
return out
