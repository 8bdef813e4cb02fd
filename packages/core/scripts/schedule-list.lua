#!lua flags=no-writes
--[[
  schedule-list: one page of the schedules in id order, or one schedule, each with its hash,
  read in one step with Redis time.

  KEYS[1]   schedules: every schedule's id (sorted set, score 0)
  ARGV[1]   schedulePrefix: schedule key prefix ("queue:{NAME}:schedule:"): a schedule's hash is this plus its id
  ARGV[2]   offset: offset
  ARGV[3]   limit: most schedules to return
  ARGV[4]   id: a schedule id to read alone, or '' for the page
  Returns:  { now ms, then per schedule an array of its hash's fields and values }
  Reply:    [nowMs: number, ...schedules: Array<Array<string>>]
]]
--@include lib/now.lua

local out = { now_ms() }
local ids
if ARGV[4] ~= '' then
  ids = { ARGV[4] }
else
  local offset = tonumber(ARGV[2])
  ids = redis.call('ZRANGE', KEYS[1], offset, offset + tonumber(ARGV[3]) - 1)
end
for _, id in ipairs(ids) do
  local fields = redis.call('HGETALL', ARGV[1] .. id)
  if #fields > 0 then out[#out + 1] = fields end
end
return out
