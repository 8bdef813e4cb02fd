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

-- Removes one occurrence of each id in `ids` (a false entry is skipped) from `list`, as
-- remove_from_list would one by one (the occurrence nearest the tail first), and returns a
-- table of the same length: true where the id was found and removed. When the list is short
-- next to the batch (a worker's own claims, mostly) and the ids are its tail, they come off in
-- one LTRIM; when short but not its tail, it is read once and written back without them (one
-- LRANGE, DEL and RPUSH instead of an LREM per id); otherwise one LREM per id.
local function remove_many_from_list(list, ids)
  -- One id (a lone completion, mostly): what the loop below does for it, without its tables.
  if #ids == 1 then
    return { ids[1] and remove_from_list(list, ids[1], redis.call('LLEN', list) <= 2 * REMOVE_PROBE) == 1 or false }
  end
  local wanted = {}
  local count = 0
  for _, id in ipairs(ids) do
    if id then
      wanted[id] = (wanted[id] or 0) + 1
      count = count + 1
    end
  end
  local found = {}
  local length = count > 0 and redis.call('LLEN', list) or 0
  if count < 4 or length > 4 * count + 64 then
    local short = length <= 2 * REMOVE_PROBE
    for i, id in ipairs(ids) do found[i] = id and remove_from_list(list, id, short) == 1 or false end
    return found
  end
  -- Most often the ids are the tail (a worker completing jobs in the order it claimed them). A
  -- list shorter than the batch has not all of them.
  local tail = redis.call('LRANGE', list, -count, -1)
  local left = {}
  for id, n in pairs(wanted) do left[id] = n end
  local whole = #tail == count
  for _, id in ipairs(tail) do
    local n = left[id]
    if not n or n == 0 then
      whole = false
      break
    end
    left[id] = n - 1
  end
  if whole then
    redis.call('LTRIM', list, 0, -count - 1)
    for i, id in ipairs(ids) do found[i] = id and true or false end
    return found
  end
  local items = redis.call('LRANGE', list, 0, -1)
  local removed, kept = {}, {}
  for i = #items, 1, -1 do
    local id = items[i]
    local left = wanted[id]
    if left and left > 0 then
      wanted[id] = left - 1
      removed[id] = (removed[id] or 0) + 1
      items[i] = false
    end
  end
  local any = false
  for i, id in ipairs(ids) do
    local left = id and removed[id]
    if left and left > 0 then
      removed[id] = left - 1
      found[i] = true
      any = true
    else
      found[i] = false
    end
  end
  if any then
    for i = 1, #items do
      if items[i] then kept[#kept + 1] = items[i] end
    end
    redis.call('DEL', list)
    if #kept > 0 then redis.call('RPUSH', list, unpack(kept)) end
  end
  return found
end
