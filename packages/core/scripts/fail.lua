#!lua flags=allow-oom
--[[
  fail: records a failed attempt of a claimed job, fenced like complete. The script, not the
  caller, decides between retry and dead letter, from the hash's attempts and max_attempts:
  a permanent failure, or attempts >= max_attempts, moves the job to the failed list with its
  reason; otherwise it is retried, after the given delay through the delayed set, or at once
  (onto pending, or its priority's list: a retried job keeps its priority).

  KEYS[1]  job: the job's hash
  KEYS[2]  processing: processing list
  KEYS[3]  pending: pending list
  KEYS[4]  delayed: delayed sorted set
  KEYS[5]  failed: failed list
  KEYS[6]  leases: lease index sorted set
  KEYS[7]  stats: stats hash
  KEYS[8]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for ids trimmed off the failed history
  ARGV[2]  id: id
  ARGV[3]  token: claim token
  ARGV[4]  error: error message (stored as last_error)
  ARGV[5]  retryDelayMs: retry delay in ms (<= 0: back to pending at once)
  ARGV[6]  permanent: 1 if the failure is permanent (no retry), else 0
  ARGV[7]  maxAttempts: default max attempts, for a hash without max_attempts
  ARGV[8]  ttlSeconds: failed TTL in seconds (0 = no TTL)
  ARGV[9]  historyCap: failed history cap (-1 = no cap)
  ARGV[10] channel: events channel ('' = publish nothing)
  ARGV[11] wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[12] prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[13] logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[14] worker: the worker's id, for the event log ('' = none)
  ARGV[15] errorCode: the error's code, for the event log ('' = none)
  ARGV[16] errorJson: the error in its JSON form (see src/error-shape.ts), stored as last_error_json
           and in the attempt's record
  ARGV[17] attemptsKeep: ended attempts kept in the job's trail (0 = none, see lib/job-trail.lua)
  Returns: NOT_OWNER (nothing changed) | FAIL_RETRIED (back on pending now) | FAIL_DEAD_LETTERED |
           FAIL_DELAYED (retry scheduled)
  Reply:   number
  Publishes: on the wake channel, the ms until a delayed retry is due, when it is now the
           first delayed job due (see lib/due-notice.lua)
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/history.lua
--@include lib/dead-letter.lua
--@include lib/due-notice.lua
--@include lib/push-pending.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

-- The outcomes besides NOT_OWNER.
local FAIL_RETRIED = 1 --@export
local FAIL_DEAD_LETTERED = 2 --@export
local FAIL_DELAYED = 3 --@export

local key, id, token, reason = KEYS[1], ARGV[2], ARGV[3], ARGV[4]
local owned = holds_claim(key, token) and remove_from_list(KEYS[2], id) == 1
if not owned then return NOT_OWNER end

local now = now_ms()
local log = open_log(KEYS[8], ARGV[13], ARGV[1])
redis.call('ZREM', KEYS[6], id)
local f = redis.call('HMGET', key, 'attempts', 'max_attempts', 'slots', 'priority', 'group')
local attempts = tonumber(f[1]) or 0
local max_attempts = tonumber(f[2]) or tonumber(ARGV[7])
if f[3] then
  redis.call('HDEL', key, 'slots')
  load_free_slots(); free_slots({ prefix = ARGV[12], job_prefix = ARGV[1], pending = KEYS[3] }, id, f[3])
end
local dead = ARGV[6] == '1' or attempts >= max_attempts
load_job_trail()
record_attempt(key, tonumber(ARGV[17]), ARGV[14], now, dead and 'failed' or 'retried', ARGV[16],
  math.max(0, tonumber(ARGV[5])) / 1000)
if dead then
  dead_letter({ job_prefix = ARGV[1], failed = KEYS[5], stats = KEYS[7], cap = tonumber(ARGV[9]),
    ttl = tonumber(ARGV[8]), channel = ARGV[10], now = now, pending = KEYS[3], delayed = KEYS[4],
    wake = ARGV[11], prefix = ARGV[12], log = log, worker = ARGV[14] }, id, reason, ARGV[15], nil, ARGV[16])
  return FAIL_DEAD_LETTERED
end

redis.call('HSET', key, 'claim_token', '', 'claimed_at_ms', 0, 'last_error', reason,
  'last_error_at_ms', now, 'last_error_json', ARGV[16], 'trail', '1')
redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token')
redis.call('HINCRBY', KEYS[7], 'retried_total', 1)
publish_event(ARGV[10], id, 'retry')
log_event(log, id, 'retried', attempts, ARGV[14], ARGV[15])
local delay = tonumber(ARGV[5])
if delay > 0 then
  redis.call('HSET', key, 'status', 'delayed', 'run_at_ms', now + delay)
  redis.call('ZADD', KEYS[4], now + delay, id)
  notice_due(KEYS[4], ARGV[11], now + delay, now)
  return FAIL_DELAYED
end
redis.call('HSET', key, 'status', 'pending')
push_pending(ARGV[12], KEYS[3], id, f[4], false, f[5])
return FAIL_RETRIED
