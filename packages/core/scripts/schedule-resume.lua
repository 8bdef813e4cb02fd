#!lua
--[[
  schedule-resume: resumes a paused schedule. Its next run is the first tick after now (ARGV[2],
  computed by the caller): the ticks missed while it was paused are skipped, none runs at once.
  Resuming a schedule that is not paused changes nothing.

  KEYS[1]   schedule: schedule hash
  KEYS[2]   due: due sorted set (member: schedule id, score: next run ms)
  KEYS[3]   stats: stats hash (its field schedule_revision numbers every change of every schedule)
  ARGV[1]   id: schedule id
  ARGV[2]   firstMs: its first run after now, ms, computed by the caller; -1 for none
  ARGV[3]   wakeChannel: schedules wake channel ("queue:{NAME}:schedules-wake"): told the next run
  ARGV[4]   revision: the revision ARGV[2] was computed for
  Returns:  { outcome, now ms, the status after ('' when there is no such schedule) }, outcome
            one of 'resumed', 'unchanged' (not paused), 'retry' (ARGV[2] is no longer after now,
            or the schedule changed: read it and compute again; nothing written)
  Reply:    [outcome: 'resumed' | 'unchanged' | 'retry', nowMs: number, status: string]
]]
--@include lib/now.lua

local now = now_ms()
local s = redis.call('HMGET', KEYS[1], 'status', 'limit', 'runs', 'revision')
if not s[1] then return { 'unchanged', now, '' } end
if s[1] ~= 'paused' then return { 'unchanged', now, s[1] } end
local first = tonumber(ARGV[2])
if s[4] ~= ARGV[4] or (first >= 0 and first <= now) then return { 'retry', now, 'paused' } end
redis.call('HSET', KEYS[1], 'revision', redis.call('HINCRBY', KEYS[3], 'schedule_revision', 1))
local limit = tonumber(s[2] or '0')
if first < 0 or (limit > 0 and tonumber(s[3] or '0') >= limit) then
  redis.call('HSET', KEYS[1], 'status', 'done', 'next_run_ms', '')
  return { 'resumed', now, 'done' }
end
local first_text = int_text(first)
redis.call('HSET', KEYS[1], 'status', 'active', 'next_run_ms', first_text)
redis.call('ZADD', KEYS[2], first_text, ARGV[1])
redis.call('PUBLISH', ARGV[3], first_text)
return { 'resumed', now, 'active' }
