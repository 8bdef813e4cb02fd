#!lua flags=allow-oom
--[[
  promote-job: an operator's promote: one delayed job (enqueued with a delay, or a retry waiting
  out its backoff) starts now. It leaves the delayed set and goes where a due delayed job goes
  (see lib/promote-due.lua): onto the back of pending, or of its priority's list, or its group's
  list; a claim that meets a job of a paused or limited kind parks it as usual. The job keeps
  the call's request id, so the same call sent again (its reply lost) answers PROMOTED and moves
  nothing twice. A job in any other status is left alone.

  KEYS[1]  job: the job's hash
  KEYS[2]  delayed: delayed sorted set
  KEYS[3]  pending: pending list
  KEYS[4]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  id: the job's id
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[3]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for the event log
  ARGV[4]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[5]  worker: the promoting process's id, for the event log ('' = none)
  ARGV[6]  request: this call's random id, the same when it is sent again
  Returns: { PROMOTED } if promoted (now or by this same call before), else { NOT_PROMOTED, the
           status that kept it }, with status '' when there is no such job
  Reply:   [code: number, status?: string]
]]
--@include lib/job-status.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua

local PROMOTED = 1 --@export
local NOT_PROMOTED = 0 --@export

local key, id, request = KEYS[1], ARGV[1], ARGV[6]
local status = job_status(key)
if not status then return { NOT_PROMOTED, '' } end
if status ~= 'delayed' then
  -- Promoted by this very call, whose reply was lost: said again, not done again.
  if redis.call('HGET', key, 'promoted_by') == request then return { PROMOTED } end
  return { NOT_PROMOTED, status }
end
-- Status delayed but not in the set: a claim's promotion is moving it (a foreign client's).
if redis.call('ZREM', KEYS[2], id) == 0 then return { NOT_PROMOTED, 'processing' } end
redis.call('HSET', key, 'status', 'pending', 'promoted_by', request)
local f = redis.call('HMGET', key, 'priority', 'group')
push_pending(ARGV[2], KEYS[3], id, f[1], false, f[2])
log_event(open_log(KEYS[4], ARGV[4], ARGV[3]), id, 'promoted', nil, ARGV[5], '')
return { PROMOTED }
