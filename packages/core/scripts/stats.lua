#!lua flags=no-writes
--[[
  stats: one consistent snapshot of a queue: the depth of every list and set, the counters
  that the scripts keep, and the enqueue time of the oldest pending job.

  KEYS[1]  pending list
  KEYS[2]  processing list
  KEYS[3]  delayed sorted set
  KEYS[4]  completed list
  KEYS[5]  failed list
  KEYS[6]  stats hash
  KEYS[7]  flow hash (see lib/flow.lua)
  ARGV[1]  job key prefix ("queue:{NAME}:job:")
  Returns: { now ms, pending, processing, delayed, completed, failed,
             oldest pending enqueued_at_ms or -1, { counter field, value, ... },
             { flow field, value, ... }, jobs waiting in the lists of other priorities,
             parked jobs of paused and limited kinds, groups with jobs waiting in their turn }
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/flow.lua

local oldest = -1
local tail = redis.call('LINDEX', KEYS[1], -1)
if tail and job_status(ARGV[1] .. tail) then
  oldest = tonumber(redis.call('HGET', ARGV[1] .. tail, 'enqueued_at_ms')) or -1
end
local flow = redis.call('HGETALL', KEYS[7])
local prioritized, parked, groups = 0, 0, 0
if #flow > 0 then
  groups = redis.call('ZCARD', queue_prefix(ARGV[1]) .. 'groups')
  for _, level in ipairs(redis.call('ZRANGE', queue_prefix(ARGV[1]) .. 'priorities', 0, -1)) do
    prioritized = prioritized + redis.call('LLEN', priority_list(ARGV[1], tonumber(level)))
  end
  local seen = {}
  for i = 1, #flow, 2 do
    local kind = string.match(flow[i], '^paused_kind:(.*)$') or string.match(flow[i], '^rate_kind:(.*)$')
      or string.match(flow[i], '^cap_kind:(.*)$') or string.match(flow[i], '^limited_until:(.*)$')
    if kind and not seen[kind] then
      seen[kind] = true
      parked = parked + redis.call('LLEN', parked_list(ARGV[1], kind))
    end
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
  flow,
  prioritized,
  parked,
  groups,
}
