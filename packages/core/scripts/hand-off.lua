#!lua flags=allow-oom
--[[
  hand-off: a worker claimed a job of a kind it does not know (a rolling deploy: a new
  producer's kind reaches an old worker first) and hands it back without spending an attempt:
  fenced like complete, the job leaves processing and the lease index, gives back its running
  slots, and waits in the delayed set for a worker that knows the kind: HAND_OFF_MS when a live
  worker of the registry says it handles the kind (the caller counts them: a partitioned queue's
  registry is in partition 0, another slot of a cluster), else up to ORPHAN_WAIT_MS. The first hand-off with no such worker alive stamps unhandled_since_ms; once
  graceMs have passed since then with none, the job is dead-lettered with JOBS_UNKNOWN_KIND. A
  live worker for the kind clears the stamp. Logged 'handed-off'. The token stays in
  handed_off_claim_token, so that a resend after a lost reply answers HAND_OFF_REPEATED and
  changes nothing.

  KEYS[1]  job: the job's hash
  KEYS[2]  processing: processing list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  leases: lease index sorted set
  KEYS[5]  stats: stats hash
  KEYS[6]  log: the event log stream (see lib/log-event.lua)
  KEYS[7]  pending: pending list (see lib/free-slots.lua)
  KEYS[8]  failed: failed list, where it goes once its grace is over
  ARGV[1]  id: the job's id
  ARGV[2]  token: claim token
  ARGV[3]  kind: the job's kind, which the caller does not know
  ARGV[4]  graceMs: how long it may wait with no live worker for its kind before it fails (ms)
  ARGV[5]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys
  ARGV[6]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[7]  channel: events channel ('' = publish nothing)
  ARGV[8]  wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[9]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[10] worker: the worker's id, for the event log ('' = none)
  ARGV[11] attemptsKeep: ended attempts kept in a job's trail (0 = none, see lib/job-trail.lua)
  ARGV[12] failedTtlSeconds: failed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[13] historyCap: failed history cap (-1 = no cap)
  ARGV[14] known: the kinds the caller knows, for the failure's reason (comma-separated)
  ARGV[15] liveWorkers: how many live workers of the registry handle the kind
  Returns: { HAND_OFF_DELAYED, ms until it is due, live workers for the kind } handed back;
           { HAND_OFF_FAILED, 0, 0 } dead-lettered; { HAND_OFF_REPEATED, 0, 0 } done by the
           first call of a resend; { CLAIM_CANCELLED, 0, 0 } cancelled while claimed;
           { NOT_OWNER, 0, 0 } not the caller's claim (nothing changed)
  Reply:   [code: number, delayMs: number, liveWorkers: number]
]]
--@include lib/now.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/wait-again.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua
--@include lib/dead-letter.lua

local HAND_OFF_DELAYED = 1 --@export
local HAND_OFF_FAILED = 2 --@export
local HAND_OFF_REPEATED = 3 --@export
-- How long a job waits when a live worker knows its kind (that worker takes it then), and at
-- most when none does (it looks again then), in ms.
local HAND_OFF_MS = 1000 --@export
local ORPHAN_WAIT_MS = 10000 --@export

local key, id, token, kind = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local owned, f = holds_claim(key, token)
if not (owned and remove_from_list(KEYS[2], id) == 1) then
  if f and cancelled_claim(key, f[1], token) then return { CLAIM_CANCELLED, 0, 0 } end
  if token ~= '' and redis.call('HGET', key, 'handed_off_claim_token') == token then return { HAND_OFF_REPEATED, 0, 0 } end
  return { NOT_OWNER, 0, 0 }
end
local now = now_ms()
local prefix, job_prefix = ARGV[5], ARGV[6]
redis.call('ZREM', KEYS[4], id)
local h = redis.call('HMGET', key, 'attempts', 'slots', 'unhandled_since_ms')
if h[2] then
  redis.call('HDEL', key, 'slots')
  load_free_slots(); free_slots({ prefix = prefix, job_prefix = job_prefix, pending = KEYS[7] }, id, h[2])
end
local log = open_log(KEYS[6], ARGV[9], job_prefix)
local live = tonumber(ARGV[15]) or 0
local since = tonumber(h[3]) or now
local grace = tonumber(ARGV[4])
load_job_trail()
if live == 0 and now - since >= grace then
  record_attempt(key, tonumber(ARGV[11]), ARGV[10], now, 'failed', '', 0)
  redis.call('HSET', key, 'handed_off_claim_token', token)
  local reason = 'JOBS_UNKNOWN_KIND: no live worker has handled kind "' .. kind .. '" for ' .. int_text(now - since) ..
    ' ms (the grace is ' .. int_text(grace) .. ' ms; this worker knows ' .. ARGV[14] .. ')'
  dead_letter({ job_prefix = job_prefix, prefix = prefix, pending = KEYS[7], failed = KEYS[8], stats = KEYS[5],
    cap = tonumber(ARGV[13]), ttl = tonumber(ARGV[12]), channel = ARGV[7], now = now, log = log, worker = ARGV[10],
    delayed = KEYS[3], wake = ARGV[8] }, id, reason, 'JOBS_UNKNOWN_KIND')
  return { HAND_OFF_FAILED, 0, 0 }
end
local wait = HAND_OFF_MS
if live == 0 then wait = math.max(HAND_OFF_MS, math.min(ORPHAN_WAIT_MS, since + grace - now)) end
local due = now + wait
record_attempt(key, tonumber(ARGV[11]), ARGV[10], now, 'released', '', wait / 1000)
if live == 0 then
  redis.call('HSET', key, 'unhandled_since_ms', int_text(since))
else
  redis.call('HDEL', key, 'unhandled_since_ms')
end
wait_again({ delayed = KEYS[3], wake = ARGV[8], channel = ARGV[7] }, key, id, token, h[1], 'handed_off_claim_token', due, now)
redis.call('HINCRBY', KEYS[5], 'handed_off_total', 1)
log_event(log, id, 'handed-off', nil, ARGV[10], '')
return { HAND_OFF_DELAYED, wait, live }
