--@include lib/read-hash.lua
--@include lib/admission.lua
--@lazy: loaded by cancels.
-- Takes job `id` (hash `key`, status pending) off whichever list it waits in: pending, its
-- priority's list, its kind's parked list or its group's list (see lib/admission.lua), for a cancel.
-- The lists' indexes stay right: a group's carrier (in pending or its priority's list) hands
-- its group's turn on, a priority list it empties leaves the levels set, a group list it
-- empties leaves the groups set (once no carrier holds the group's turn), and pending that it empties gets
-- another carrier while jobs wait at other priorities (see keep_carrier). Returns 1, or 0 when it is in none of them (a recipe client
-- moved it and has not stamped it yet).
local function unlist_pending(prefix, pending, key, id, now)
  local f = read_hash(key, 'priority', 'kind', 'group')
  local level = f and tonumber(f[1])
  local kind = f and f[2]
  local group = f and f[3] ~= '' and f[3]
  -- O(length of pending): cancelling is rare, and the list has no other index.
  local removed = redis.call('LREM', pending, 1, id)
  local from_pending = removed == 1
  if level and level ~= 0 then
    local list = priority_list(prefix, level)
    if removed == 0 then removed = redis.call('LREM', list, 1, id) end
    -- A carrier in pending (see push_pending) left its level listed too.
    if removed == 1 and redis.call('LLEN', list) == 0 then redis.call('ZREM', levels_set(prefix), level) end
  end
  if removed == 1 then
    if group then carrier_left(prefix, group, now) end
    -- The only carrier cancelled: another keeps pending from looking empty to blocked claims.
    if from_pending and redis.call('LLEN', pending) == 0 then keep_carrier(prefix, pending) end
    return 1
  end
  if kind and redis.call('LREM', parked_list(prefix, kind), 1, id) == 1 then return 1 end
  if group then
    local list = group_list(prefix, group)
    if redis.call('LREM', list, 1, id) == 1 then
      -- An empty list leaves the groups set, unless a carrier holds the group's turn (score ahead).
      local at = redis.call('LLEN', list) == 0 and tonumber(redis.call('ZSCORE', groups_set(prefix), group))
      if at and at <= now then redis.call('ZREM', groups_set(prefix), group) end
      return 1
    end
  end
  return 0
end
