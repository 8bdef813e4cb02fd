--@include lib/now.lua
-- Flow control: priorities and pauses. Their keys are the queue's key prefix `prefix`
-- ("queue:{NAME}:", keys.ts's `prefix`, passed in ARGV) with keys.ts's FLOW_KEY_SUFFIXES:
--   <prefix>flow          hash: 'paused' = '1' (the queue), 'paused_kind:<kind>' = '1',
--                         'priorities' = '1' while jobs of another priority than 0 may wait
--   <prefix>priorities    sorted set of the levels whose list may hold jobs (score = level)
--   <prefix>priority:<p>  list: the waiting jobs of priority p (0 lives in pending)
--   <prefix>parked:<kind> list: jobs of a paused kind met by a claim, until the kind resumes
-- A queue that uses none of them has no flow hash: a claim reads it (one HGETALL) and goes on.

local function levels_set(prefix)
  return prefix .. 'priorities'
end

local function priority_list(prefix, level)
  return prefix .. 'priority:' .. int_text(level)
end

local function parked_list(prefix, kind)
  return prefix .. 'parked:' .. kind
end

-- The kind a 'paused_kind:<kind>' field of the flow hash names, or nil for any other field.
local function paused_kind_of(field)
  return string.match(field, '^paused_kind:(.*)$')
end

-- Puts a waiting job where claims find it in its priority's order: priority 0 (or none) onto
-- pending, as the recipe does; another onto its level's list, noted in the levels set and the
-- flow hash. `claim_end`: onto the end claims take next (a reclaimed or released job keeps its
-- place); else the back. A job of another priority that finds pending and its own list empty
-- goes onto pending instead, as a carrier: the push wakes the claims blocked on pending (nothing
-- else would), and the claim that meets it there takes it (a higher priority: no level above it
-- has jobs then) or files it in its list (a lower one, behind the pending jobs that came since).
local function push_pending(prefix, pending, id, priority, claim_end)
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
