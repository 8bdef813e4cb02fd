#!lua flags=allow-oom
--[[
  schedule-pause: pauses an active schedule: it leaves the due set and runs no tick until it
  is resumed. Pausing a paused, done or missing schedule changes nothing.

  KEYS[1]   schedule: schedule hash
  KEYS[2]   due: due sorted set (member: schedule id, score: next run ms)
  ARGV[1]   id: schedule id
  Returns:  { 1 if paused now else 0, the status after ('' when there is no such schedule) }
  Reply:    [changed: number, status: string]
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return { 0, '' } end
if status ~= 'active' then return { 0, status } end
redis.call('HSET', KEYS[1], 'status', 'paused', 'next_run_ms', '')
redis.call('ZREM', KEYS[2], ARGV[1])
return { 1, 'paused' }
