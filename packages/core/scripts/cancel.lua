#!lua flags=allow-oom
--[[
  cancel: cancels a job that has not finished: one in pending (or its priority's list, its
  group's list, or parked while its kind is paused or limited), in the delayed set, a flow's
  parent waiting for its children, or one running. Its hash says status=cancelled and expires
  after the TTL. A running job leaves processing and the lease index, gives back its running
  slots, and its claim is void (its token moves to cancelled_claim_token, so that the worker's
  next lease renewal learns why: see extend.lua); the worker running it is told on the control
  channel. A job already finished is left alone. A cancelled parent's unstarted
  children are cancelled too, down the tree; a cancelled child fails its parent, or counts as
  settled, as the parent's on_child_failure says (see lib/flow-children.lua). Each job it
  cancels is logged 'cancelled'. Its dedupe key is released unless it holds for cancelled jobs.

  KEYS[1]  job: the job's hash
  KEYS[2]  pending: pending list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  stats: stats hash
  KEYS[5]  failed: failed list, where a parent failed by its cancelled child goes
  KEYS[6]  log: the event log stream (see lib/log-event.lua)
  KEYS[7]  processing: processing list
  KEYS[8]  leases: lease index sorted set
  ARGV[1]  id: the job's id
  ARGV[2]  ttlSeconds: TTL of the cancelled hash in seconds (0 = keep)
  ARGV[3]  channel: events channel ('' = publish nothing)
  ARGV[4]  prefix: the queue's key prefix ("queue:{NAME}:"), for the priority, group and parked lists (see lib/admission.lua)
  ARGV[5]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for the flow's other jobs
  ARGV[6]  failedTtlSeconds: failed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[7]  historyCap: failed history cap (-1 = no cap)
  ARGV[8]  wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[9]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[10] worker: the cancelling process's id, for the event log ('' = none)
  ARGV[11] controlChannel: the workers' control channel, told of a running job cancelled
  ARGV[12] attemptsKeep: ended attempts kept in a job's trail (0 = none, see lib/job-trail.lua)
  Returns: { CANCELLED, the status it was cancelled from } if cancelled, else { NOT_CANCELLED,
           the status that kept it from being cancelled }, with status '' when there is no such job
  Reply:   [code: number, status?: string]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/events.lua
--@include lib/due-notice.lua
--@include lib/admission.lua
--@include lib/unlist-pending.lua
--@include lib/dead-letter.lua
--@include lib/log-event.lua
--@include lib/remove-from-list.lua
--@include lib/free-slots.lua
--@include lib/job-trail.lua
--@include lib/dedupe.lua
--@include lib/batch.lua

-- The reply's first value.
-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
load_unlist_pending()
load_flow_children()
local CANCELLED = 1 --@export
local NOT_CANCELLED = 0 --@export

local key, id = KEYS[1], ARGV[1]
local status = job_status(key)
if not status then return { NOT_CANCELLED, '' } end
local now = now_ms()
if status == 'pending' then
  -- Status pending but in no list: a recipe client moved it and has not stamped it yet.
  if unlist_pending(ARGV[4], KEYS[2], key, id, now) == 0 then return { NOT_CANCELLED, 'processing' } end
elseif status == 'delayed' then
  if redis.call('ZREM', KEYS[3], id) == 0 then return { NOT_CANCELLED, 'processing' } end
elseif status == 'waiting-children' then
  redis.call('ZREM', waiting_parents(ARGV[4]), id)
elseif status == 'processing' then
  -- Status processing but not in the list: a recipe client is between its two steps.
  if remove_from_list(KEYS[7], id) == 0 then return { NOT_CANCELLED, 'processing' } end
  redis.call('ZREM', KEYS[8], id)
  local f = redis.call('HMGET', key, 'claim_token', 'slots')
  load_job_trail()
  record_attempt(key, tonumber(ARGV[12]), ARGV[10], now, 'cancelled', '', 0)
  redis.call('HSET', key, 'claim_token', '', 'cancelled_claim_token', f[1] or '')
  redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'slots')
  if f[2] then load_free_slots(); free_slots({ prefix = ARGV[4], job_prefix = ARGV[5], pending = KEYS[2] }, id, f[2]) end
  if f[1] and f[1] ~= '' then
    -- Unheard, the worker learns it at its next lease renewal.
    publish_courtesy(ARGV[11], cjson.encode({ op = 'cancel', id = id, token = f[1] }))
  end
else
  return { NOT_CANCELLED, status }
end
redis.call('HSET', key, 'status', 'cancelled', 'cancelled_at_ms', now)
if tonumber(ARGV[2]) > 0 then redis.call('EXPIRE', key, tonumber(ARGV[2])) end
-- Its trail (lib/job-trail.lua), from attempts before this wait, goes with it.
if redis.call('HGET', key, 'trail') then load_job_trail(); trail_keep(key, ARGV[2]) end
-- Its dedupe key is released, or kept with the hash (lib/dedupe.lua).
local dedupe_key = redis.call('HGET', key, 'dedupe_key')
if dedupe_key then load_dedupe(); dedupe_end(ARGV[4], key, id, dedupe_key, 'x', ARGV[2], true) end
publish_event(ARGV[3], id, 'cancelled')
-- Logged before the cascade, so that the log reads cause first: this job, then its children.
local log = open_log(KEYS[6], ARGV[9], ARGV[5])
log_event(log, id, 'cancelled', nil, ARGV[10], '')
local flow = { prefix = ARGV[4], job_prefix = ARGV[5], pending = KEYS[2], delayed = KEYS[3], stats = KEYS[4],
  failed = KEYS[5], cancelled_ttl = tonumber(ARGV[2]), ttl = tonumber(ARGV[6]), cap = tonumber(ARGV[7]),
  channel = ARGV[3], wake = ARGV[8], now = now, log = log, worker = ARGV[10] }
-- Its batch counts it cancelled (lib/batch.lua).
local batch = redis.call('HGET', key, 'batch')
if batch then load_batch(); batch_job_ended(flow, key, batch, 'cancelled') end
redis.call('HINCRBY', KEYS[4], 'cancelled_total', 1 + flow_cancelled(flow, key, id, dead_letter))
return { CANCELLED, status }
