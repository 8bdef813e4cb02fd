-- Removes one occurrence of id from a list (processing, failed) and returns how many it removed
-- (0/1). LREM alone is O(distance from the end it starts at); on a long list that can be long.
-- So probe a window at each end first (LPOS with MAXLEN is bounded): in processing the oldest
-- claims, which expire and usually finish first, sit at the tail, the newest at the head. Only
-- an id deep in the middle of a very long list pays for a full scan. A caller that knows the
-- list is short (at most 2 * REMOVE_PROBE long) passes `short` and skips the probes.
local REMOVE_PROBE = 1000
local function remove_from_list(list, id, short)
  if short then return redis.call('LREM', list, -1, id) end
  if redis.call('LPOS', list, id, 'RANK', -1, 'MAXLEN', REMOVE_PROBE) then
    return redis.call('LREM', list, -1, id)
  end
  if redis.call('LPOS', list, id, 'MAXLEN', REMOVE_PROBE) then
    return redis.call('LREM', list, 1, id)
  end
  return redis.call('LREM', list, -1, id)
end
