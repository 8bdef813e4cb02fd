#!lua flags=allow-oom
--[[
  snooze: puts a running job back to wait for `delayMs` without spending an attempt (a handler's
  `ctx.snooze`): fenced like complete; the job leaves processing and the lease index, gives back
  its running slots, and goes to the delayed set due at now + delayMs (status delayed), its
  attempt not counted (attempts - 1, as a release does). Its claim is void; the token stays in
  snoozed_claim_token, so that a resend after a lost reply answers CLAIM_DONE again and changes
  nothing. Counted in stats (snoozed_total) and logged 'snoozed'.

  KEYS[1]  job: the job's hash
  KEYS[2]  processing: processing list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  leases: lease index sorted set
  KEYS[5]  stats: stats hash
  KEYS[6]  log: the event log stream (see lib/log-event.lua)
  KEYS[7]  pending: pending list, where a freed running slot's next job goes (see lib/free-slots.lua)
  ARGV[1]  id: the job's id
  ARGV[2]  token: claim token
  ARGV[3]  delayMs: how long it waits (ms)
  ARGV[4]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys
  ARGV[5]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[6]  channel: events channel ('' = publish nothing)
  ARGV[7]  wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[8]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[9]  worker: the worker's id, for the event log ('' = none)
  ARGV[10] attemptsKeep: ended attempts kept in a job's trail (0 = none, see lib/job-trail.lua)
  Returns: CLAIM_DONE snoozed (now, or by the first call of a resend), CLAIM_CANCELLED the job
           was cancelled while it ran, NOT_OWNER not the caller's claim (nothing changed)
  Reply:   number
  Publishes: on the wake channel, the ms until it is due, when it is now the first delayed job due
]]
--@include lib/now.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/wait-again.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

local key, id, token = KEYS[1], ARGV[1], ARGV[2]
local owned, f = holds_claim(key, token)
if not (owned and remove_from_list(KEYS[2], id) == 1) then
  if f and cancelled_claim(key, f[1], token) then return CLAIM_CANCELLED end
  if token ~= '' and redis.call('HGET', key, 'snoozed_claim_token') == token then return CLAIM_DONE end
  return NOT_OWNER
end
local now = now_ms()
local due = now + tonumber(ARGV[3])
redis.call('ZREM', KEYS[4], id)
load_job_trail()
record_attempt(key, tonumber(ARGV[10]), ARGV[9], now, 'snoozed', '', tonumber(ARGV[3]) / 1000)
local h = redis.call('HMGET', key, 'attempts', 'slots')
if h[2] then
  redis.call('HDEL', key, 'slots')
  load_free_slots(); free_slots({ prefix = ARGV[4], job_prefix = ARGV[5], pending = KEYS[7] }, id, h[2])
end
redis.call('HSET', key, 'snoozed_at_ms', int_text(now))
wait_again({ delayed = KEYS[3], wake = ARGV[7], channel = ARGV[6] }, key, id, token, h[1], 'snoozed_claim_token', due, now)
redis.call('HINCRBY', KEYS[5], 'snoozed_total', 1)
log_event(open_log(KEYS[6], ARGV[8], ARGV[5]), id, 'snoozed', nil, ARGV[9], '')
return CLAIM_DONE
