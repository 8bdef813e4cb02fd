--@include lib/now.lua
-- Flow control: priorities and pauses. Their keys are built from the queue's hash-tagged prefix
-- (the job prefix "queue:{NAME}:job:" without "job:"), as keys.ts names them:
--   queue:{NAME}:flow          hash: 'paused' = '1' (the queue), 'paused_kind:<kind>' = '1',
--                              'priorities' = '1' while jobs of another priority than 0 may wait
--   queue:{NAME}:priorities    sorted set of the levels whose list may hold jobs (score = level)
--   queue:{NAME}:priority:<p>  list: the waiting jobs of priority p (0 lives in pending)
--   queue:{NAME}:parked:<kind> list: jobs of a paused kind met by a claim, until the kind resumes
--   queue:{NAME}:groups        sorted set: each group with waiting jobs, scored by when its next
--                              turn may be taken (see lib/limits.lua)
--   queue:{NAME}:group:<g>     list: the waiting jobs of group g behind its carrier
-- A queue that uses none of them has no flow hash: a claim reads it (one HGETALL) and goes on.

local function queue_prefix(job_prefix)
  return string.sub(job_prefix, 1, -5)
end

local function priority_list(job_prefix, level)
  return queue_prefix(job_prefix) .. 'priority:' .. int_text(level)
end

local function parked_list(job_prefix, kind)
  return queue_prefix(job_prefix) .. 'parked:' .. kind
end

local function group_list(job_prefix, group)
  return queue_prefix(job_prefix) .. 'group:' .. group
end

-- How long a group's carrier holds its turn (see push_pending) before the claims' turns between
-- groups take the group's next job anyway: a carrier lost to a recipe client or a cancel must
-- not stall its group.
local CARRIER_TURN_MS = 30000

-- Puts a waiting job where claims find it in its priority's order: priority 0 (or none) onto
-- pending, as the recipe does; another onto its level's list, noted in the levels set and the
-- flow hash. `claim_end`: onto the end claims take next (a reclaimed or released job keeps its
-- place); else the back. A job of another priority that finds pending and its own list empty
-- goes onto pending instead, as a carrier: the push wakes the claims blocked on pending (nothing
-- else would), and the claim that meets it there takes it (a higher priority: no level above it
-- has jobs then) or files it in its list (a lower one, behind the pending jobs that came since).
-- A job of a group (`group`, see lib/limits.lua) goes there only as its group's carrier, when no
-- job of the group waits yet (the push wakes blocked claims, and the claim that meets it runs it
-- or files it at the head of its group's list); else straight onto its group's list.
local function push_pending(job_prefix, pending, id, priority, claim_end, group)
  if group and group ~= '' then
    local prefix = queue_prefix(job_prefix)
    redis.call('HSET', prefix .. 'flow', 'groups', '1')
    if redis.call('ZSCORE', prefix .. 'groups', group) then
      local list = group_list(job_prefix, group)
      if claim_end then redis.call('RPUSH', list, id) else redis.call('LPUSH', list, id) end
      return
    end
    redis.call('ZADD', prefix .. 'groups', now_ms() + CARRIER_TURN_MS, group)
  end
  local level = tonumber(priority)
  local list = pending
  if level and level ~= 0 then
    local own = priority_list(job_prefix, level)
    if redis.call('LLEN', pending) > 0 or redis.call('LLEN', own) > 0 then
      list = own
      redis.call('ZADD', queue_prefix(job_prefix) .. 'priorities', level, level)
    end
    redis.call('HSET', queue_prefix(job_prefix) .. 'flow', 'priorities', '1')
  end
  if claim_end then redis.call('RPUSH', list, id) else redis.call('LPUSH', list, id) end
end
