#!lua flags=allow-oom
--[[
  release: hands claimed jobs back to pending at once (a worker shutting down, not a failure):
  fenced like complete; each id leaves processing and the lease index, goes back to the claim
  end of pending (or of its priority's list) in its order, and the interrupted attempt is not
  counted against it. The running slots of a concurrency cap it held are given back.

  KEYS[1]   processing: processing list
  KEYS[2]   pending: pending list
  KEYS[3]   leases: lease index sorted set
  KEYS[4]   stats: stats hash
  KEYS[5]   log: the event log stream (see lib/log-event.lua)
  KEYS[6..] jobs: the job hash of each job, in the order of the ARGV pairs
  ARGV[1]   channel: events channel ('' = publish nothing)
  ARGV[2]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[3]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[4]   jobPrefix: job key prefix ("queue:{NAME}:job:"), for the event log and the job a
            freed running slot goes to (see lib/free-slots.lua)
  ARGV[5]   worker: the worker's id, for the event log ('' = none)
  ARGV[6]   attemptsKeep: ended attempts kept in a job's trail (0 = none, see lib/job-trail.lua)
  ARGV[7..] claims: per job, 2 values: id, claim token
  Returns:  per job CLAIM_DONE if released, NOT_OWNER if the caller does not own the job
            (nothing changed)
  Reply:    number[]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/push-pending.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

local now_text = int_text(now_ms())
local out, released = {}, {}
local log = open_log(KEYS[5], ARGV[3], ARGV[4])
local slots_ctx = { prefix = ARGV[2], job_prefix = ARGV[4], pending = KEYS[2] }
local attempts_keep = tonumber(ARGV[6])
load_job_trail()
for j = 0, (#ARGV - 6) / 2 - 1 do
  local id, token = ARGV[7 + j * 2], ARGV[8 + j * 2]
  local key = KEYS[6 + j]
  local owned = holds_claim(key, token) and remove_from_list(KEYS[1], id) == 1
  if owned then
    redis.call('ZREM', KEYS[3], id)
    record_attempt(key, attempts_keep, ARGV[5], tonumber(now_text), 'released', '', 0)
    redis.call('HSET', key, 'status', 'pending', 'claim_token', '', 'claimed_at_ms', '0',
      'released_at_ms', now_text)
    -- Not HINCRBY: on a hand-written non-integer it would abort the script with the job already
    -- out of processing and not yet back on pending.
    local f = redis.call('HMGET', key, 'attempts', 'priority', 'group', 'slots')
    local attempts = tonumber(f[1])
    if attempts and attempts >= 1 then redis.call('HSET', key, 'attempts', int_text(attempts - 1)) end
    redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'slots')
    if f[4] then load_free_slots(); free_slots(slots_ctx, id, f[4], 'k') end
    publish_event(ARGV[1], id, 'released')
    log_event(log, id, 'released', nil, ARGV[5], '')
    released[#released + 1] = { id, f[2], f[3], f[4] }
    out[#out + 1] = CLAIM_DONE
  else
    out[#out + 1] = NOT_OWNER
  end
end
-- Back to the claim end, first claimed rightmost, so they run next and in their order.
for i = #released, 1, -1 do push_pending(ARGV[2], KEYS[2], released[i][1], released[i][2], true, released[i][3]) end
-- Their group slots last: each turn goes back to the released job, first in its group again.
for i = 1, #released do
  if released[i][4] then free_slots(slots_ctx, released[i][1], released[i][4], 'g') end
end
if #released > 0 then redis.call('HINCRBY', KEYS[4], 'released_total', #released) end
return out
