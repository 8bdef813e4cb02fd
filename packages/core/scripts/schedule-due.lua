#!lua flags=no-writes
--[[
  schedule-due: what a schedule runner needs to run the next ticks: Redis time, and the active
  schedules with the earliest next runs (those due now, and the first not due yet), each with
  what computing its following run takes.

  KEYS[1]   due: due sorted set (member: schedule id, score: next run ms)
  ARGV[1]   schedulePrefix: schedule key prefix ("queue:{NAME}:schedule:"): a schedule's hash is this plus its id
  ARGV[2]   max: N, the most schedules to return
  Returns:  { now ms, then per schedule, earliest next run first, SCHEDULE_DUE_STRIDE values: id,
            revision, next run ms, cron, tz, every_ms, start_at_ms, end_at_ms }
  Reply:    [nowMs: number, ...schedules: Array<string>]
]]
--@include lib/now.lua

local SCHEDULE_DUE_STRIDE = 8 --@export

local out = { now_ms() }
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
for _, id in ipairs(ids) do
  local s = redis.call('HMGET', ARGV[1] .. id, 'revision', 'next_run_ms', 'cron', 'tz', 'every_ms', 'start_at_ms', 'end_at_ms')
  -- An id whose hash is gone or holds no next run is skipped; the scripts that write keep both in step.
  if s[1] and s[2] and s[2] ~= '' then
    out[#out + 1] = id
    for i = 1, SCHEDULE_DUE_STRIDE - 1 do out[#out + 1] = s[i] or '' end
  end
end
return out
