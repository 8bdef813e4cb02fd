#!lua flags=allow-oom
--[[
  remove: deletes a job that is not running: pending (in whichever list it waits, see
  lib/unlist-pending.lua), delayed, a flow's parent waiting for its children, completed, failed
  or cancelled. It leaves every list and set it is in, its hash goes (and with it its timeline
  index), and the idempotency key it holds is released (one recorded at enqueue in its hash's
  idempotency_key, and only while it still names this job), as is its dedupe key (see
  lib/dedupe.lua). A flow stays consistent: a parent
  waiting for its children cancels its unstarted children first, as a cancel does (a running
  child finishes, and its parent, gone, hears nothing); a child its parent still waits for
  settles there as cancelled with the error 'removed' (so the parent fails, or counts it
  settled, as its on_child_failure says); a settled child's entry in its parent is kept. The
  removal is logged 'removed', published on the events channel as status 'removed' (a caller
  waiting for the job's result reads it again and finds none), and recorded (request id and job id) in the removals set for
  REMOVALS_KEPT_MS, so the same call sent again (its reply lost) answers REMOVED. A running job
  is left alone: its status is the answer.

  KEYS[1]  job: the job's hash
  KEYS[2]  pending: pending list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  completed: completed list
  KEYS[5]  failed: failed list (also where a parent failed by its removed child goes)
  KEYS[6]  stats: stats hash
  KEYS[7]  log: the event log stream (see lib/log-event.lua)
  KEYS[8]  removals: the removals set (member: request id, ' ', job id; score: when, ms)
  ARGV[1]  id: the job's id
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[3]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for the flow's other jobs
  ARGV[4]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[5]  worker: the removing process's id, for the event log ('' = none)
  ARGV[6]  request: this call's random id, the same when it is sent again
  ARGV[7]  ttlSeconds: TTL in seconds of the hash of a child cancelled with its parent (0 = keep)
  ARGV[8]  channel: events channel ('' = publish nothing), for this job's removal and the children cancelled with it
  ARGV[9]  failedTtlSeconds: failed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[10] historyCap: failed history cap (-1 = no cap)
  ARGV[11] wakeChannel: the wake channel (see lib/due-notice.lua)
  Returns: { REMOVED } if removed (now or by this same call before), else { NOT_REMOVED, the
           status that kept it }, with status '' when there is no such job
  Reply:   [code: number, status?: string]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/events.lua
--@include lib/admission.lua
--@include lib/unlist-pending.lua
--@include lib/remove-from-list.lua
--@include lib/dead-letter.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua
--@include lib/dedupe.lua
--@include lib/batch.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
load_unlist_pending()
load_flow_children()
local REMOVED = 1 --@export
local NOT_REMOVED = 0 --@export
-- How long a removal is remembered for a resent call, and the most removals remembered.
local REMOVALS_KEPT_MS = 3600000 --@export
local REMOVALS_KEPT_MAX = 10000 --@export

local key, id, prefix, request = KEYS[1], ARGV[1], ARGV[2], ARGV[6]
local member = request .. ' ' .. id
if redis.call('ZSCORE', KEYS[8], member) then return { REMOVED } end
local status = job_status(key)
if not status then return { NOT_REMOVED, '' } end
local now = now_ms()
if status == 'pending' then
  -- Status pending but in no list: a recipe client moved it and has not stamped it yet.
  if unlist_pending(prefix, KEYS[2], key, id, now) == 0 then return { NOT_REMOVED, 'processing' } end
elseif status == 'delayed' then
  if redis.call('ZREM', KEYS[3], id) == 0 then return { NOT_REMOVED, 'processing' } end
elseif status == 'completed' then
  remove_from_list(KEYS[4], id)
elseif status == 'failed' then
  remove_from_list(KEYS[5], id)
elseif status ~= 'cancelled' and status ~= 'waiting-children' then
  return { NOT_REMOVED, status }
end

local log = open_log(KEYS[7], ARGV[4], ARGV[3])
log_event(log, id, 'removed', nil, ARGV[5], '')
local f = redis.call('HMGET', key, 'parent_id', 'kind', 'idempotency_key', 'trail', 'dedupe_key', 'batch')
local flow = { prefix = prefix, job_prefix = ARGV[3], pending = KEYS[2], delayed = KEYS[3], stats = KEYS[6],
  failed = KEYS[5], cancelled_ttl = tonumber(ARGV[7]), ttl = tonumber(ARGV[9]), cap = tonumber(ARGV[10]),
  channel = ARGV[8], wake = ARGV[11], now = now, log = log, worker = ARGV[5] }
local cancelled = 0
if status == 'waiting-children' then
  redis.call('ZREM', waiting_parents(prefix), id)
  cancelled = flow_cancel_children(flow, key)
end
if f[1] and flow_waiting(redis.call('HGET', ARGV[3] .. f[1], 'child:' .. id)) then
  flow_child_settled(flow, id, f[2], f[1], 'cancelled', nil, 'removed', dead_letter)
end
if cancelled > 0 then redis.call('HINCRBY', KEYS[6], 'cancelled_total', cancelled) end
-- The key's name as keys.ts built it for the enqueue (which had it in KEYS), checked to be this
-- queue's; released only while it names this job: a later job may hold the same key now.
local idem = f[3]
if idem and string.find(idem, prefix, 1, true) == 1 and redis.call('GET', idem) == id then redis.call('DEL', idem) end
-- Its dedupe key too, in whatever state it held (lib/dedupe.lua).
if f[5] then load_dedupe(); dedupe_end(prefix, key, id, f[5], '', 0, false) end
-- A job of a batch that had not ended counts there as cancelled (lib/batch.lua).
if f[6] then load_batch(); batch_job_ended(flow, key, f[6], 'cancelled') end
-- Its trail (lib/job-trail.lua: attempts and log lines) goes with its hash.
local gone = { key }
if f[4] then load_job_trail(); trail_add_keys(gone, key) end
redis.call('DEL', unpack(gone))
publish_event(ARGV[8], id, 'removed')
redis.call('HINCRBY', KEYS[6], 'removed_total', 1)
redis.call('ZADD', KEYS[8], now, member)
redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', '(' .. int_text(now - REMOVALS_KEPT_MS))
redis.call('ZREMRANGEBYRANK', KEYS[8], 0, -(REMOVALS_KEPT_MAX + 1))
redis.call('PEXPIRE', KEYS[8], REMOVALS_KEPT_MS)
return { REMOVED }
