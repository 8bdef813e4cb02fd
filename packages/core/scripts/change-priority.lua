#!lua flags=allow-oom
--[[
  change-priority: gives a job that has not started a new priority (see lib/admission.lua). A
  job waiting in pending or in its priority's list moves to the back of its new priority's
  place, as if enqueued now at that priority; the lists' indexes stay right (a level's list it
  empties leaves the levels set, and pending keeps a carrier while jobs wait at other levels).
  A delayed job, a flow's parent waiting for its children, a job parked while its kind is
  paused or limited, and a job of a group keep their place: the new priority is where they go
  when they are next put in line (a group's jobs keep their order within the group). The job
  keeps the call's request id, so the same call sent again (its reply lost) answers CHANGED.
  A job that is running or has finished is left alone.

  KEYS[1]  job: the job's hash
  KEYS[2]  pending: pending list
  KEYS[3]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  id: the job's id
  ARGV[2]  priority: the new priority (a whole number, checked by the caller)
  ARGV[3]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[4]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for the event log
  ARGV[5]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[6]  worker: the changing process's id, for the event log ('' = none)
  ARGV[7]  request: this call's random id, the same when it is sent again
  Returns: { CHANGED } if changed (now or by this same call before), else { NOT_CHANGED, the
           status that kept it }, with status '' when there is no such job
  Reply:   [code: number, status?: string]
]]
--@include lib/job-status.lua
--@include lib/admission.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
local CHANGED = 1 --@export
local NOT_CHANGED = 0 --@export

local key, pending, id, prefix, request = KEYS[1], KEYS[2], ARGV[1], ARGV[3], ARGV[7]
local status = job_status(key)
if not status then return { NOT_CHANGED, '' } end
if redis.call('HGET', key, 'priority_by') == request then return { CHANGED } end
if status ~= 'pending' and status ~= 'delayed' and status ~= 'waiting-children' then return { NOT_CHANGED, status } end
local f = redis.call('HMGET', key, 'priority', 'group')
local old, new = tonumber(f[1]) or 0, tonumber(ARGV[2])
local group = f[2] ~= '' and f[2]
redis.call('HSET', key, 'priority', int_text(new), 'priority_by', request)
if status == 'pending' and not group and old ~= new then
  local removed = redis.call('LREM', pending, 1, id)
  if old ~= 0 then
    local list = priority_list(prefix, old)
    if removed == 0 then removed = redis.call('LREM', list, 1, id) end
    -- A carrier in pending (see push_by_priority) left its level listed too.
    if removed == 1 and redis.call('LLEN', list) == 0 then redis.call('ZREM', levels_set(prefix), old) end
  end
  -- Not in pending nor its level's list: parked (or half moved by a recipe client), left there.
  if removed == 1 then
    push_pending(prefix, pending, id, new, false, nil)
    -- Pending emptied while jobs wait at other levels: one of them carries (see keep_carrier).
    if redis.call('LLEN', pending) == 0 then keep_carrier(prefix, pending) end
  end
end
log_event(open_log(KEYS[3], ARGV[5], ARGV[4]), id, 'reprioritized', nil, ARGV[6], '', { 'priority', int_text(new) })
return { CHANGED }
