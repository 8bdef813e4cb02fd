#!lua flags=allow-oom
--[[
  retry: redrives dead-lettered jobs: each id that is in status failed leaves the failed list
  and goes back onto pending (LPUSH, the back of the queue; or of its priority's list) with a fresh set of attempts. Its
  last_error is kept, for the record. An id whose hash has expired is dropped from the failed
  list and counted in failed_dropped_total; ids in any other state are left alone. Each job
  redriven keeps the call's request id, so the same call sent again (its reply lost) answers
  REDRIVEN for the jobs it moved, and moves nothing twice.

  KEYS[1]   failed: failed list
  KEYS[2]   pending: pending list
  KEYS[3]   stats: stats hash
  KEYS[4]   log: the event log stream (see lib/log-event.lua)
  KEYS[5..] jobs: the job hash of each id, in the order of the ids
  ARGV[1]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[2]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[3]   jobPrefix: job key prefix ("queue:{NAME}:job:"), for the event log
  ARGV[4]   worker: the redriving process's id, for the event log ('' = none)
  ARGV[5]   request: this call's random id, the same when it is sent again
  ARGV[6..] ids: job ids
  Returns:  per id REDRIVEN, else the job's status ('' when there is no such job)
  Reply:    (number | string)[]
]]
--@include lib/remove-from-list.lua
--@include lib/job-status.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

local REDRIVEN = 1 --@export

local out = {}
local redriven, dropped = 0, 0
local log = open_log(KEYS[4], ARGV[2], ARGV[3])
local request = ARGV[5]
for j = 6, #ARGV do
  local id, key = ARGV[j], KEYS[j - 1]
  local status = job_status(key)
  if status and status ~= 'failed' and redis.call('HGET', key, 'redriven_by') == request then
    -- Redriven by this very call, whose reply was lost: said again, not done again.
    out[#out + 1] = REDRIVEN
  elseif status == 'failed' then
    remove_from_list(KEYS[1], id)
    redis.call('HSET', key, 'status', 'pending', 'attempts', 0, 'claim_token', '', 'claimed_at_ms', 0, 'redriven_by', request)
    redis.call('HDEL', key, 'failed_at_ms', 'first_claimed_at_ms', 'first_claim_token')
    redis.call('PERSIST', key)
    -- Waiting again: its trail holds as a waiting job's does (lib/job-trail.lua).
    if redis.call('HGET', key, 'trail') then load_job_trail(); trail_hold(key, 0) end
    local f = redis.call('HMGET', key, 'priority', 'group')
    push_pending(ARGV[1], KEYS[2], id, f[1], false, f[2])
    redriven = redriven + 1
    log_event(log, id, 'redriven', '0', ARGV[4], '')
    out[#out + 1] = REDRIVEN
  else
    -- An expired failed job: its id leaves the list, and the loss is counted (as tidy does).
    if not status and remove_from_list(KEYS[1], id) == 1 then dropped = dropped + 1 end
    out[#out + 1] = status or ''
  end
end
if redriven > 0 then redis.call('HINCRBY', KEYS[3], 'redriven_total', redriven) end
if dropped > 0 then redis.call('HINCRBY', KEYS[3], 'failed_dropped_total', dropped) end
return out
