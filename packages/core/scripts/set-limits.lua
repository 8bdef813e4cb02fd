#!lua flags=allow-oom
--[[
  set-limits: replaces a queue's rate limits and concurrency caps (see lib/limits.lua) with the
  given ones, in one step: every limit field of the admission hash goes, then the given ones are set.
  Pushbacks in force ('limited_until:<kind>') stay. The caller has checked the values.
  Every kind limited now, and every kind that had a limit and still has parked jobs, is marked
  'parking' (see lib/unpark-jobs.lua), so that its parked jobs stay counted and listed
  until they are back. What the reply says is read from the state, not from what this call
  changed: run twice (its reply lost), it says the same. The caller (or a sweep) then moves
  them back with unpark.lua. Workers waiting out the queue's own rate limit or cap (on the
  resume list, see lib/limits.lua) are woken to claim under the new limits, unless the queue
  is paused (they wait there for its resume).

  KEYS[1]   admission: admission hash
  ARGV[1]   prefix: the queue's key prefix ("queue:{NAME}:"), for the parked lists (see lib/admission.lua)
  ARGV[2..] fields: pairs: field, value (none: the queue has no limits any more)
  Returns:  parked jobs of kinds marked 'parking' that nothing holds back any more
  Reply:    number
]]
--@include lib/unpark-jobs.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()

-- The kind a 'rate_kind:<k>' or 'cap_kind:<k>' field names, or nil for any other field.
local function limited_kind_of(field)
  return string.match(field, '^rate_kind:(.*)$') or string.match(field, '^cap_kind:(.*)$')
end

local prefix = ARGV[1]
local fields = redis.call('HKEYS', KEYS[1])
local gone, had = {}, {}
for _, field in ipairs(fields) do
  local kind = limited_kind_of(field)
  if kind then had[kind] = true end
  if kind or field == 'rate' or field == 'cap' or field == 'group_rate' or field == 'group_cap' then
    gone[#gone + 1] = field
  end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2)) end
for i = 2, #ARGV, 2 do
  local kind = limited_kind_of(ARGV[i])
  if kind then redis.call('HSET', KEYS[1], 'parking:' .. kind, '1') end
end
for kind in pairs(had) do
  if redis.call('LLEN', parked_list(prefix, kind)) > 0 then redis.call('HSET', KEYS[1], 'parking:' .. kind, '1') end
end
local woken = redis.call('HEXISTS', KEYS[1], 'paused') == 0 and redis.call('LLEN', resume_list(prefix)) == 0
if woken then redis.call('LPUSH', resume_list(prefix), '1') end
local free = 0
local held = redis.call('HKEYS', KEYS[1])
for _, field in ipairs(held) do
  local kind = parking_kind_of(field)
  if kind and not kind_hold(KEYS[1], kind) then
    local left = redis.call('LLEN', parked_list(prefix, kind))
    if left == 0 then redis.call('HDEL', KEYS[1], field) end
    free = free + left
  end
end
return free
