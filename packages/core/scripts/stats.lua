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
  KEYS[7]  admission: admission hash (see lib/admission.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  Returns: { now ms, pending, processing, delayed, completed, failed,
             oldest pending enqueued_at_ms or -1, { counter field, value, ... },
             { admission field, value, ... }, jobs waiting in the lists of other priorities,
             parked jobs of paused and limited kinds, groups with jobs waiting in their turn,
             jobs waiting in the groups' lists behind their carriers (-1: more than
             GROUPED_COUNT_MAX groups wait, see lib/admission.lua), flow parents waiting for
             their children (see lib/flow-children.lua) }
  Reply:   [nowMs: number, pending: number, processing: number, delayed: number, completed: number, failed: number, oldestEnqueuedAtMs: number, counters: Array<string>, admission: Array<string>, prioritized: number, parked: number, groups: number, grouped: number, waitingChildren: number]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/admission.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
local oldest = -1
local tail = redis.call('LINDEX', KEYS[1], -1)
if tail and job_status(ARGV[1] .. tail) then
  oldest = tonumber(redis.call('HGET', ARGV[1] .. tail, 'enqueued_at_ms')) or -1
end
local admission = redis.call('HGETALL', KEYS[7])
local prioritized, parked, groups, grouped = 0, 0, 0, 0
if #admission > 0 then
  groups = redis.call('ZCARD', groups_set(ARGV[2]))
  if groups > 0 then grouped = grouped_depth(ARGV[2], groups) end
  for _, level in ipairs(redis.call('ZRANGE', levels_set(ARGV[2]), 0, -1)) do
    prioritized = prioritized + redis.call('LLEN', priority_list(ARGV[2], tonumber(level)))
  end
  for _, kind in ipairs(parking_kinds(admission)) do
    parked = parked + redis.call('LLEN', parked_list(ARGV[2], kind))
  end
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
  admission,
  prioritized,
  parked,
  groups,
  grouped,
  redis.call('ZCARD', ARGV[2] .. 'waiting-children'),
}
