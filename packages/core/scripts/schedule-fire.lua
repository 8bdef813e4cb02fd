#!lua
--[[
  schedule-fire: runs a schedule's due tick, at most once. A check-and-set on the tick the
  caller read: when the schedule is still active, at that revision, with that next run, and
  the tick is due by Redis time, its job is enqueued (see lib/schedule-tick.lua) and the next
  run becomes the one the caller computed. Any other caller, or this one again, finds the next
  run moved and changes nothing. The following run must lie after now: after downtime the
  missed tick runs once and the others are skipped, and the next run must lie at least ARGV[6]
  after now (the schedule's period), so that the catch-up and a tick due just after it do not
  run back to back.

  KEYS[1]   schedule: schedule hash
  KEYS[2]   due: due sorted set (member: schedule id, score: next run ms)
  KEYS[3]   pending: pending list
  KEYS[4]   stats: stats hash
  KEYS[5]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]   revision: the schedule's revision, as the caller read it
  ARGV[3]   tick: the schedule's next run ms, as the caller read it
  ARGV[4]   followingMs: the run after it, ms, computed by the caller; -1 when there is none
  ARGV[5]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[6]   minGapMs: for a catch-up (a tick run once the tick after it had passed), the least
            time from now to ARGV[4]; 0 for a tick run in its turn
  ARGV[7]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys the
            tick's job may wait in (see lib/admission.lua)
  ARGV[8]   metrics: '1' counts the tick's job in the metrics history (see lib/metrics.lua); '0' = off
  Returns:  { outcome, now ms, job id or '' }, outcome one of: 'fired'; 'stale' (removed,
            paused, changed, or the tick already run: read it again); 'early' (not due by Redis
            time); 'behind' (ARGV[4] is not after now, or less than ARGV[6] after it: compute it
            again from now). Only 'fired'
            writes.
  Reply:    [outcome: 'fired' | 'stale' | 'early' | 'behind', nowMs: number, jobId: string]
]]
--@include lib/now.lua
--@include lib/schedule-tick.lua

local now = now_ms()
local s = redis.call('HMGET', KEYS[1], 'revision', 'next_run_ms', 'status', 'limit', 'runs', 'id')
if s[1] ~= ARGV[2] or s[2] ~= ARGV[3] or s[3] ~= 'active' then return { 'stale', now, '' } end
local tick = tonumber(ARGV[3])
if tick > now then return { 'early', now, '' } end
local following = tonumber(ARGV[4])
if following >= 0 and following < now + math.max(1, tonumber(ARGV[6])) then return { 'behind', now, '' } end

local job_id = run_schedule_tick(KEYS[1], KEYS[3], KEYS[4], ARGV[7], ARGV[1], tick, now, open_log(KEYS[5], ARGV[5], ARGV[1]), ARGV[8] == '1')
local limit = tonumber(s[4] or '0')
if following < 0 or (limit > 0 and tonumber(s[5] or '0') + 1 >= limit) then
  redis.call('HSET', KEYS[1], 'status', 'done', 'next_run_ms', '')
  redis.call('ZREM', KEYS[2], s[6])
else
  local following_text = int_text(following)
  redis.call('HSET', KEYS[1], 'next_run_ms', following_text)
  redis.call('ZADD', KEYS[2], following_text, s[6])
end
return { 'fired', now, job_id }
