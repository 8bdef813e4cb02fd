#!lua flags=allow-oom
--[[
  set-limits: replaces a queue's rate limits and concurrency caps (see lib/limits.lua) with the
  given ones, in one step: every limit field of the flow hash goes, then the given ones are set.
  Pushbacks in force ('limited_until:<kind>') stay. The caller has checked the values, and moves
  the parked jobs of the kinds returned back to their lists (pause.lua's 'unpark').

  KEYS[1]   flow: flow hash
  ARGV[1..] fields: pairs: field, value (none: the queue has no limits any more)
  Returns:  the kinds that had a limit and have none now
  Reply:    string[]
]]

-- The kind a 'rate_kind:<k>' or 'cap_kind:<k>' field names, or nil for any other field.
local function limited_kind_of(field)
  return string.match(field, '^rate_kind:(.*)$') or string.match(field, '^cap_kind:(.*)$')
end

local fields = redis.call('HKEYS', KEYS[1])
local gone, had = {}, {}
for _, field in ipairs(fields) do
  local kind = limited_kind_of(field)
  if kind then had[kind] = true end
  if kind or field == 'rate' or field == 'group_rate' or field == 'group_cap' then
    gone[#gone + 1] = field
  end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
for i = 1, #ARGV, 2 do
  local kind = limited_kind_of(ARGV[i])
  if kind then had[kind] = nil end
end
local freed = {}
for kind in pairs(had) do freed[#freed + 1] = kind end
table.sort(freed)
return freed
