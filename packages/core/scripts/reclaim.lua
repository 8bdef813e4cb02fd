#!lua flags=allow-oom
--[[
  reclaim: returns the jobs of crashed or hung workers, with bounded work per call.
  1. Adopts foreign claims: a recipe client claims with BLMOVE and stamps only the hash, so its
     jobs have no entry in the lease index. Up to ARGV[8] processing entries are examined per
     call, walking the list from the tail with a cursor kept in KEYS[6]; each id without a lease
     gets one: claimed_at_ms + visibility when it is stamped, else now + visibility (counted from
     when the sweep first saw it, never from enqueued_at_ms: the recipe's B1/B2). An id whose
     hash is gone is dropped from processing.
  2. Takes up to ARGV[2] expired leases (deadline <= now), oldest first. A job that is still in
     processing goes back to the claim end of pending, or of its priority's list (it keeps its
     place in the queue), with
     its token cleared so the old worker can neither complete nor fail it; a job that has had
     max_attempts claims goes to the failed list with the reason instead (a poison job does not
     loop forever). Each expired lease is handled by exactly one call, however many run at once.

  KEYS[1]  pending: pending list
  KEYS[2]  processing: processing list
  KEYS[3]  leases: lease index sorted set
  KEYS[4]  failed: failed list
  KEYS[5]  stats: stats hash
  KEYS[6]  cursor: reclaim cursor (string: how far from the tail of processing the adoption walk is)
  KEYS[7]  delayed: delayed sorted set, where a flow's parent goes while its run-at is ahead
  KEYS[8]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  batch: most expired leases to handle in this call
  ARGV[3]  visibilityMs: default visibility ms, for jobs whose hash has no visibility_ms
  ARGV[4]  maxAttempts: default max attempts, for jobs whose hash has no max_attempts
  ARGV[5]  ttlSeconds: failed TTL in seconds (0 = no TTL)
  ARGV[6]  historyCap: failed history cap (-1 = no cap)
  ARGV[7]  channel: events channel ('' = publish nothing)
  ARGV[8]  scanBudget: most processing entries to examine for foreign claims in this call
  ARGV[9]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[10] wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[11] logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[12] worker: the sweeping process's id, for the event log ('' = none)
  ARGV[13] attemptsKeep: ended attempts kept in a job's trail (0 = none, see lib/job-trail.lua)
  Returns: { {reclaimed ids}, {dead-lettered ids}, {dropped ids}, 1 if more leases are due else 0 }
  Reply:   [reclaimed: string[], deadLettered: string[], dropped: string[], more: number]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/events.lua
--@include lib/history.lua
--@include lib/dead-letter.lua
--@include lib/push-pending.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

local job_prefix = ARGV[1]
local batch = tonumber(ARGV[2])
local default_visibility = tonumber(ARGV[3])
local default_max_attempts = tonumber(ARGV[4])
local scan_budget = tonumber(ARGV[8])
local attempts_keep = tonumber(ARGV[13])
load_job_trail()
local now = now_ms()
local ctx = { job_prefix = job_prefix, failed = KEYS[4], stats = KEYS[5], cap = tonumber(ARGV[6]),
  ttl = tonumber(ARGV[5]), channel = ARGV[7], now = now, pending = KEYS[1], delayed = KEYS[7],
  wake = ARGV[10], prefix = ARGV[9], log = open_log(KEYS[8], ARGV[11], job_prefix), worker = ARGV[12] }
local dropped = {}

-- 1. Adopt foreign claims.
if scan_budget > 0 then
  local cursor = tonumber(redis.call('GET', KEYS[6])) or 0
  local slice = redis.call('LRANGE', KEYS[2], -(cursor + scan_budget), -(cursor + 1))
  for _, id in ipairs(slice) do
    if not redis.call('ZSCORE', KEYS[3], id) then
      local key = job_prefix .. id
      if not job_status(key) then
        dropped[#dropped + 1] = id
      else
        local visibility = tonumber(redis.call('HGET', key, 'visibility_ms')) or default_visibility
        local claimed_at = tonumber(redis.call('HGET', key, 'claimed_at_ms')) or 0
        local deadline = now + visibility
        if claimed_at > 0 then deadline = claimed_at + visibility end
        redis.call('ZADD', KEYS[3], deadline, id)
      end
    end
  end
  for _, id in ipairs(dropped) do remove_from_list(KEYS[2], id) end
  -- Next call goes on from here; the ids dropped from this stretch moved the rest up by as many.
  if #slice < scan_budget then cursor = 0 else cursor = cursor + #slice - #dropped end
  redis.call('SET', KEYS[6], cursor)
end

-- 2. Handle expired leases.
local expired = redis.call('ZRANGE', KEYS[3], '-inf', now, 'BYSCORE', 'LIMIT', 0, batch)
local reclaimed, dead = {}, {}
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[3], id)
  local key = job_prefix .. id
  local status = job_status(key)
  if not status then
    remove_from_list(KEYS[2], id)
    dropped[#dropped + 1] = id
  elseif (status == 'processing' or status == 'pending')
    and remove_from_list(KEYS[2], id) == 1 then
    -- 'pending' while in processing: a recipe claimer moved it and died before its stamp.
    local f = redis.call('HMGET', key, 'attempts', 'max_attempts', 'slots', 'priority', 'group')
    local attempts = tonumber(f[1]) or 0
    local max_attempts = tonumber(f[2]) or default_max_attempts
    if f[3] then
      redis.call('HDEL', key, 'slots')
      -- A job going back keeps its group slot until it is in its group's list again (below).
      load_free_slots(); free_slots(ctx, id, f[3], attempts < max_attempts and 'k' or nil)
    end
    local reason = 'lease expired on attempt ' .. attempts .. ' of ' .. max_attempts ..
      ': the worker stopped renewing it (crashed, hung or lost its connection)'
    local error_json = cjson.encode({ code = 'LEASE_EXPIRED', message = reason })
    -- The claimer is not this sweeper: its id comes from the event log when read.
    record_attempt(key, attempts_keep, '', now, attempts >= max_attempts and 'failed' or 'reclaimed', error_json, 0)
    if attempts >= max_attempts then
      dead_letter(ctx, id, reason, 'LEASE_EXPIRED', nil, error_json)
      dead[#dead + 1] = id
    else
      redis.call('HSET', key, 'status', 'pending', 'claim_token', '', 'claimed_at_ms', 0,
        'reclaimed_at_ms', now)
      redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token')
      publish_event(ctx.channel, id, 'reclaimed')
      log_event(ctx.log, id, 'reclaimed', attempts, ctx.worker, 'LEASE_EXPIRED')
      reclaimed[#reclaimed + 1] = { id, f[4], f[5], f[3] }
    end
  end
  -- Otherwise the job already moved on (a recipe client finished or re-queued it); the stale
  -- lease entry was all there was to clean.
end
-- Back to the claim end, the longest-expired rightmost, so they run first and in their order.
local reclaimed_ids = {}
for i = #reclaimed, 1, -1 do
  push_pending(ARGV[9], KEYS[1], reclaimed[i][1], reclaimed[i][2], true, reclaimed[i][3])
  reclaimed_ids[i] = reclaimed[i][1]
end
-- Their group slots last: each turn goes back to the reclaimed job, first in its group again.
for i = 1, #reclaimed do
  if reclaimed[i][4] then free_slots(ctx, reclaimed[i][1], reclaimed[i][4], 'g') end
end
if #reclaimed > 0 then redis.call('HINCRBY', KEYS[5], 'reclaimed_total', #reclaimed) end
if #dropped > 0 then redis.call('HINCRBY', KEYS[5], 'dropped_total', #dropped) end
local more = 0
if #expired == batch then more = 1 end
return { reclaimed_ids, dead, dropped, more }
