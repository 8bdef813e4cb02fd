#!lua flags=allow-oom
--[[
  worker-leave: a closing worker takes itself out of the queue's registry (see
  lib/live-workers.lua) at once, rather than when its heartbeat's TTL runs out. Sending it again
  changes nothing more.

  KEYS[1]  workers: the worker registry (sorted set: id scored by the time until which it is alive)
  KEYS[2]  worker: the worker's hash
  ARGV[1]  id: the worker's id
  Returns: 1 when the worker was registered, else 0
  Reply:   number
]]

local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return removed
