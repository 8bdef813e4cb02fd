--@include lib/now.lua
--@lazy: a queue that uses no admission never defines these (see lib/push-pending.lua).
-- Admission: what decides whether and when a waiting job may start (priorities, pauses, limits
-- and groups; parent/child flows are lib/flow-children.lua). Their keys are the queue's key prefix
-- `prefix` ("queue:{NAME}:", keys.ts's `prefix`, passed in ARGV) with keys.ts's ADMISSION_KEY_SUFFIXES:
--   <prefix>flow          hash: 'paused' (the queue) and 'paused_kind:<kind>' = when that pause began
--                         (ms, Redis clock; '1' when written before that was recorded),
--                         'priorities' = '1' while jobs of another priority than 0 may wait,
--                         'parking:<kind>' = '1' while the kind may have parked jobs (see
--                         lib/unpark-jobs.lua), and the limits and groups fields of lib/limits.lua
--   <prefix>priorities    sorted set of the levels whose list may hold jobs (score = level)
--   <prefix>priority:<p>  list: the waiting jobs of priority p (0 lives in pending)
--   <prefix>parked:<kind> list: jobs of a paused (or limited) kind met by a claim, until it may start
--   <prefix>groups        sorted set: each group with waiting jobs, scored by when its next turn
--                         may be taken (see lib/limits.lua)
--   <prefix>group:<g>     list: the waiting jobs of group g behind its carrier
--   <prefix>rate, <prefix>rate:kind:<k>, <prefix>rate:group:<g>  sorted sets: the starts in a
--                         rate limit's sliding window (see lib/limits.lua)
--   <prefix>spread, <prefix>spread:kind:<k>, <prefix>spread:group:<g>  strings: a spread rate
--                         limit's theoretical arrival time (see lib/limit-scopes.lua)
--   <prefix>running, <prefix>running:kind:<k>, <prefix>running:group:<g>  sorted sets: the
--                         running slots of the queue's, a kind's, a group's concurrency cap
--   <prefix>resume        list: a token that wakes the claims waiting on it (a paused queue's,
--                         and those of a queue over its own rate limit or cap)
-- A queue that uses none of them has no admission hash: a claim reads it (one HGETALL) and goes on.

local function levels_set(prefix)
  return prefix .. 'priorities'
end

local function priority_list(prefix, level)
  return prefix .. 'priority:' .. int_text(level)
end

local function parked_list(prefix, kind)
  return prefix .. 'parked:' .. kind
end

-- The kind a 'paused_kind:<kind>' field of the admission hash names, or nil for any other field.
local function paused_kind_of(field)
  return string.match(field, '^paused_kind:(.*)$')
end

-- The keys of limits and groups (see lib/limits.lua).
local function groups_set(prefix) return prefix .. 'groups' end
local function group_list(prefix, group) return prefix .. 'group:' .. group end
local function queue_rate(prefix) return prefix .. 'rate' end
local function kind_rate(prefix, kind) return prefix .. 'rate:kind:' .. kind end
local function group_rate(prefix, group) return prefix .. 'rate:group:' .. group end
local function kind_running(prefix, kind) return prefix .. 'running:kind:' .. kind end
local function group_running(prefix, group) return prefix .. 'running:group:' .. group end
local function queue_running(prefix) return prefix .. 'running' end
local function queue_spread(prefix) return prefix .. 'spread' end
local function kind_spread(prefix, kind) return prefix .. 'spread:kind:' .. kind end
local function group_spread(prefix, group) return prefix .. 'spread:group:' .. group end
local function resume_list(prefix) return prefix .. 'resume' end

-- A rate limit's admission-hash value: 'max/windowMs' (a sliding window), or
-- 'max/windowMs/burst' (spread). Returns { max, windowMs, burst or nil }, or nil when malformed.
local function parse_rate(text)
  local max, window, burst = string.match(text or '', '^(%d+)/(%d+)/?(%d*)$')
  if not max or tonumber(max) < 1 then return nil end
  burst = tonumber(burst)
  if burst and (burst < 1 or burst > tonumber(max)) then return nil end
  return { tonumber(max), tonumber(window), burst }
end

-- A spread limit's emission interval, in whole microseconds rounded up: one start per interval,
-- `burst` at once after a pause. It is windowMs / (max - burst + 1), not windowMs / max, so that
-- no sliding window, burst included, holds more than max starts.
local function spread_interval_us(rate)
  return math.ceil(rate[2] * 1000 / (rate[1] - rate[3] + 1))
end

-- The kind a 'parking:<kind>' field of the admission hash names (a kind that may have parked jobs),
-- or nil for any other field.
local function parking_kind_of(field)
  return string.match(field, '^parking:(.*)$')
end

-- The kinds whose jobs a claim may have parked, sorted: the paused ones, those with a limit or
-- a pushback (see lib/limits.lua), and those marked 'parking' whose parked jobs are not all
-- back yet, from the admission hash's fields and values in `hash` (HGETALL).
local function parking_kinds(hash)
  local kinds, seen = {}, {}
  for i = 1, #hash, 2 do
    local kind = paused_kind_of(hash[i]) or string.match(hash[i], '^rate_kind:(.*)$')
      or string.match(hash[i], '^cap_kind:(.*)$') or string.match(hash[i], '^limited_until:(.*)$')
      or parking_kind_of(hash[i])
    if kind and not seen[kind] then
      seen[kind] = true
      kinds[#kinds + 1] = kind
    end
  end
  table.sort(kinds)
  return kinds
end

-- Above this many groups with jobs waiting, the jobs in their lists are not counted (one LLEN a
-- group) by a call that runs on every poll, such as stats.
local GROUPED_COUNT_MAX = 10000 --@export

-- The jobs waiting in the groups' lists, behind their carriers, or -1 when more than
-- GROUPED_COUNT_MAX groups wait (`groups`: how many wait, the groups set's ZCARD).
local function grouped_depth(prefix, groups)
  if groups > GROUPED_COUNT_MAX then return -1 end
  local depth = 0
  for from = 0, groups - 1, 1000 do
    for _, group in ipairs(redis.call('ZRANGE', groups_set(prefix), from, from + 999)) do
      depth = depth + redis.call('LLEN', group_list(prefix, group))
    end
  end
  return depth
end

-- A group's carrier left pending (started, parked or cancelled): the group's next job has its
-- turn now (`now`) in the turns between groups, or the group leaves them when none of its jobs waits.
local function carrier_left(prefix, group, now)
  if redis.call('LLEN', group_list(prefix, group)) > 0 then
    redis.call('ZADD', groups_set(prefix), now, group)
  else
    redis.call('ZREM', groups_set(prefix), group)
  end
end

-- How long a group's carrier holds its turn (see push_pending) before the claims' turns between
-- groups take the group's next job anyway: a carrier lost to a recipe client or a cancel must
-- not stall its group.
local CARRIER_TURN_MS = 30000

-- Pending ran empty while jobs of other priorities wait (a claim took the last carrier, or a
-- cancel did): the next of them (the highest level's oldest) goes back onto pending's claim end
-- as a carrier (see push_by_priority), which the next claim files back at the claim end of its
-- list. Waits for work block on pending alone, so pending must hold a job whenever one waits:
-- else a claimer blocked on it waits out its block with jobs waiting.
local function keep_carrier(prefix, pending)
  for _, level in ipairs(redis.call('ZRANGE', levels_set(prefix), '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 8)) do
    if redis.call('LMOVE', priority_list(prefix, tonumber(level)), pending, 'RIGHT', 'RIGHT') then return end
  end
end

-- Puts a waiting job where claims find it in its priority's order: priority 0 (or none) onto
-- pending, as the recipe does; another onto its level's list, noted in the levels set and the
-- admission hash. `claim_end`: onto the end claims take next (a reclaimed or released job keeps its
-- place); else the back. A job of another priority that finds pending and its own list empty
-- goes onto pending instead, as a carrier: the push wakes the claims blocked on pending (nothing
-- else would), and the claim that meets it there takes it (a higher priority: no level above it
-- has jobs then) or files it in its list (a lower one, behind the pending jobs that came since).
-- A job of a group (`group`, see lib/limits.lua) goes there only as its group's carrier, when no
-- job of the group waits yet (the push wakes blocked claims, and the claim that meets it runs it
-- or files it at the head of its group's list); else straight onto its group's list.
local function push_by_priority(prefix, pending, id, priority, claim_end, group)
  if group and group ~= '' then
    redis.call('HSET', prefix .. 'flow', 'groups', '1')
    if redis.call('ZSCORE', groups_set(prefix), group) then
      local list = group_list(prefix, group)
      if claim_end then redis.call('RPUSH', list, id) else redis.call('LPUSH', list, id) end
      return
    end
    redis.call('ZADD', groups_set(prefix), now_ms() + CARRIER_TURN_MS, group)
  end
  local level = tonumber(priority)
  local list = pending
  if level and level ~= 0 then
    local own = priority_list(prefix, level)
    if redis.call('LLEN', pending) > 0 or redis.call('LLEN', own) > 0 then
      list = own
      redis.call('ZADD', levels_set(prefix), level, level)
    end
    redis.call('HSET', prefix .. 'flow', 'priorities', '1')
  end
  if claim_end then redis.call('RPUSH', list, id) else redis.call('LPUSH', list, id) end
end

