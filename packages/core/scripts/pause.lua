#!lua flags=allow-oom
--[[
  pause: pauses or resumes a queue, or one kind of it (see lib/flow.lua). A paused queue's
  claims take nothing (and say so, so that workers wait on the resume list instead of pending);
  a paused kind's jobs are parked by the claims that meet them. Enqueues go on as usual. The
  state is a field of the flow hash, so it holds across worker and Redis restarts.
  Resuming a queue pushes a token onto the resume list: the claims blocked on it wake at once.
  Resuming a kind moves its parked jobs back to the claim end of their lists (they were the
  oldest there), at most ARGV[4] per call: 'unpark' moves the next batch, and stops when the
  kind has been paused again meanwhile.

  KEYS[1]  flow: flow hash
  KEYS[2]  resume: resume list
  KEYS[3]  pending: pending list
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  action: 'pause', 'resume' or 'unpark'
  ARGV[3]  kind: the kind ('' = the whole queue)
  ARGV[4]  batch: most parked jobs to move back in this call
  ARGV[5]  prefix: the queue's key prefix ("queue:{NAME}:"), for the parked and priority lists (see lib/flow.lua)
  Returns: parked jobs of the kind left to move back (0 for the whole queue), or
           UNPARK_PAUSED_AGAIN when 'unpark' found the kind paused again
  Reply:   number
]]
--@include lib/read-hash.lua
--@include lib/push-pending.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_flow()
local UNPARK_PAUSED_AGAIN = -1 --@export

local job_prefix, action, kind, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
if kind == '' then
  if action == 'pause' then
    redis.call('HSET', KEYS[1], 'paused', '1')
    redis.call('DEL', KEYS[2])
  else
    redis.call('HDEL', KEYS[1], 'paused')
    redis.call('DEL', KEYS[2])
    redis.call('LPUSH', KEYS[2], '1')
  end
  return 0
end

local field = 'paused_kind:' .. kind
if action == 'pause' then
  redis.call('HSET', KEYS[1], field, '1')
  return redis.call('LLEN', parked_list(prefix, kind))
end
if action == 'resume' then
  redis.call('HDEL', KEYS[1], field)
elseif redis.call('HEXISTS', KEYS[1], field) == 1 then
  return UNPARK_PAUSED_AGAIN
end
local parked = parked_list(prefix, kind)
local ids = redis.call('LRANGE', parked, 0, tonumber(ARGV[4]) - 1)
-- Newest first: each batch's oldest ends up rightmost, and each later (older) batch beyond it.
for _, id in ipairs(ids) do
  local f = read_hash(job_prefix .. id, 'status', 'priority', 'group')
  if f and (f[1] == 'pending' or f[1] == nil) and redis.call('EXISTS', job_prefix .. id) == 1 then
    push_pending(prefix, KEYS[3], id, f[2], true, f[3])
  end
end
if #ids > 0 then redis.call('LTRIM', parked, #ids, -1) end
return redis.call('LLEN', parked)
