#!lua flags=no-writes
--[[
  stats: one consistent snapshot of a queue: the depth of every list and set, the counters
  that the scripts keep, and the enqueue time of the oldest pending job.

  KEYS[1]  pending: pending list
  KEYS[2]  processing: processing list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  completed: completed list
  KEYS[5]  failed: failed list
  KEYS[6]  stats: stats hash
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  Returns: { now ms, pending, processing, delayed, completed, failed,
             oldest pending enqueued_at_ms or -1, { counter field, value, ... } }
  Reply:   [nowMs: number, pending: number, processing: number, delayed: number, completed: number, failed: number, oldestEnqueuedAtMs: number, counters: Array<string>]
]]
--@include lib/now.lua
--@include lib/job-status.lua

local oldest = -1
local tail = redis.call('LINDEX', KEYS[1], -1)
if tail and job_status(ARGV[1] .. tail) then
  oldest = tonumber(redis.call('HGET', ARGV[1] .. tail, 'enqueued_at_ms')) or -1
end
return {
  now_ms(),
  redis.call('LLEN', KEYS[1]),
  redis.call('LLEN', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
  redis.call('LLEN', KEYS[4]),
  redis.call('LLEN', KEYS[5]),
  oldest,
  redis.call('HGETALL', KEYS[6]),
}
