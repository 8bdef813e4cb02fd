#!lua
--[[
  schedule-upsert: creates schedule ARGV[2] or replaces its definition, in one step. When its
  timing (ARGV[3]) is unchanged its next run stays; when the timing changed, a tick of the old
  timing that is due and not yet run runs now (no tick lost), and the next run becomes ARGV[4],
  which must lie after now (none doubled); that tick's job is logged 'enqueued' as
  schedule-fire.lua logs one. A paused schedule stays paused. A schedule past its
  run limit, or with no run left, is 'done'.

  KEYS[1]   schedule: schedule hash
  KEYS[2]   due: due sorted set (member: schedule id, score: next run ms)
  KEYS[3]   schedules: every schedule's id (sorted set, score 0)
  KEYS[4]   pending: pending list
  KEYS[5]   stats: stats hash (its field schedule_revision numbers every change of every schedule)
  KEYS[6]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]   id: schedule id
  ARGV[3]   timing: text naming when it runs (pattern, time zone, interval, start, end)
  ARGV[4]   firstMs: its first run after now by that timing, ms, computed by the caller; -1 for none
  ARGV[5]   wakeChannel: schedules wake channel ("queue:{NAME}:schedules-wake"): told the next run when there is one
  ARGV[6]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[7]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys a tick's
            job may wait in (see lib/admission.lua)
  ARGV[8]   metrics: '1' counts a tick's job in the metrics history (see lib/metrics.lua); '0' = off
  ARGV[9..] definition: the definition's fields and values: kind, payload, cron, tz, every_ms,
            start_at_ms, end_at_ms, limit, and the job options each tick's job gets:
            max_attempts, visibility_ms, priority, group ('' for none), ttl_ms
  Returns:  { outcome, now ms, revision, next run ms or -1 }, outcome one of 'created',
            'updated', or 'retry' (ARGV[4] is no longer after now: compute it again from the now
            returned; nothing written)
  Reply:    [outcome: 'created' | 'updated' | 'retry', nowMs: number, revision: number | string, nextRunMs: number]
]]
--@include lib/now.lua
--@include lib/schedule-tick.lua

local now = now_ms()
local old = redis.call('HMGET', KEYS[1], 'timing', 'next_run_ms', 'status')
local exists = old[3] ~= false
local keep = exists and old[1] == ARGV[3] and old[2] ~= ''
local first = tonumber(ARGV[4])
if not keep and old[3] ~= 'paused' and first >= 0 and first <= now then return { 'retry', now, '', -1 } end

-- The old timing's due tick runs with the old definition before the new one replaces it.
if exists and not keep and old[3] == 'active' and old[2] ~= '' and tonumber(old[2]) <= now then
  run_schedule_tick(KEYS[1], KEYS[4], KEYS[5], ARGV[7], ARGV[1], tonumber(old[2]), now, open_log(KEYS[6], ARGV[6], ARGV[1]), ARGV[8] == '1')
end

local now_text = int_text(now)
local revision = redis.call('HINCRBY', KEYS[5], 'schedule_revision', 1)
local fields = { 'id', ARGV[2], 'timing', ARGV[3], 'revision', revision, 'updated_at_ms', now_text }
for i = 9, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', KEYS[1], unpack(fields))
if not exists then redis.call('HSET', KEYS[1], 'created_at_ms', now_text, 'runs', '0', 'status', 'active') end
redis.call('ZADD', KEYS[3], 0, ARGV[2])

local next_run = first
if keep then next_run = tonumber(old[2]) end
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit') or '0')
local runs = tonumber(redis.call('HGET', KEYS[1], 'runs') or '0')
if old[3] == 'paused' then
  next_run = -1
  redis.call('HSET', KEYS[1], 'next_run_ms', '')
  redis.call('ZREM', KEYS[2], ARGV[2])
elseif next_run < 0 or (limit > 0 and runs >= limit) then
  next_run = -1
  redis.call('HSET', KEYS[1], 'status', 'done', 'next_run_ms', '')
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  local next_text = int_text(next_run)
  redis.call('HSET', KEYS[1], 'status', 'active', 'next_run_ms', next_text)
  redis.call('ZADD', KEYS[2], next_text, ARGV[2])
  redis.call('PUBLISH', ARGV[5], next_text)
end
local outcome = 'updated'
if not exists then outcome = 'created' end
return { outcome, now, revision, next_run }
