#!lua flags=allow-oom
--[[
  schedule-remove: deletes a schedule: its hash, and its id from the due set and the index. The
  jobs it already enqueued stay. A runner holding its tick finds it gone and changes nothing.

  KEYS[1]   schedule: schedule hash
  KEYS[2]   due: due sorted set (member: schedule id)
  KEYS[3]   schedules: every schedule's id (sorted set)
  ARGV[1]   id: schedule id
  Returns:  1 if it was there, else 0
  Reply:    number
]]
local existed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return existed
