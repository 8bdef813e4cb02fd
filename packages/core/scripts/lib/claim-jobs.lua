--@include lib/read-hash.lua
--@include lib/now.lua
--@include lib/admission.lua
--@include lib/dead-letter.lua
--@include lib/log-event.lua
-- Claims up to `wanted` jobs from the claim end (the right) of one list of waiting jobs: each id
-- moves to the head of processing and its hash is stamped in the same atomic step:
-- status=processing, a fresh claim_token (16 hex digits: a random 12-digit base per call and a
-- 4-digit claim number), claimed_at_ms, attempts+1, a lease (deadline = now + the job's
-- visibility) in the lease index. There is no moment at which a claimed job lacks its stamp (the
-- recipe's B1). An id whose hash is gone, or whose hash says the job already finished, is
-- dropped and not returned (nothing can run without a payload, and a finished job must not run
-- twice). A job past its expires_at_ms goes to failed instead, never to a worker.
--
-- Every read of a pass comes before its first write, so an error (a Redis user lacking a
-- permission) leaves the list as it was: ids are never taken off it without landing somewhere.
--
-- c: { pending, processing, leases, stats, admission, job_prefix, prefix, visibility, max_attempts,
--      token_base, now, failed, cap, ttl, channel, traced, claimed, dropped, expired, deadline_text,
--      log, worker } (log: see lib/log-event.lua, nil when off; each claim is logged 'claimed'
--      by `worker`, each expired job 'expired')
--   (failed, cap, ttl, channel, now and job_prefix are also dead_letter's ctx; prefix is the
--   queue's key prefix, see admission.lua)
-- admission: nil on a queue without admission state, else { kinds = set of paused kinds or nil,
--   carriers = true for pending while other priorities are in use (see push_pending),
--   lim = the limits and groups in use or nil (see lib/limits.lua) }
-- Appends CLAIM_STRIDE values per claimed job to `out`: id, token, attempts, max_attempts,
-- lease deadline, payload, kind, enqueued_at_ms, last_error, priority (a missing field is nil);
-- with c.traced (a worker that traces), CLAIM_TRACED_STRIDE: those and the traceparent.
-- Returns true when the list ran dry.
local CLAIM_STRIDE = 10 --@export
local CLAIM_TRACED_STRIDE = 11 --@export
-- In place of the next due time in a claim's reply: the queue is paused.
local CLAIM_PAUSED = -2 --@export
-- At most this in place of the next due time: the queue is over its rate limit until minus
-- this value (ms, Redis clock; see lib/limits.lua).
local CLAIM_LIMITED_MAX = -3 --@export
-- A member the lease index keeps at +inf from the first claim on: longer than any
-- zset-max-listpack-value Redis ships with (64 bytes), it keeps the index a skiplist, where adding
-- and removing a lease costs O(log n) rather than a scan of a listpack that decodes every score.
-- It is never a lease: every reader takes leases by score up to now, or by member.
local LEASE_INDEX_ANCHOR = ' not a job: keeps this lease index a skiplist (see lib/claim-jobs.lua) ' --@export
--@include lib/limits.lua

-- The kind of a job whose hash has no kind field (a recipe producer's): its payload's.
local function payload_kind(payload)
  if not payload then return nil end
  local ok, decoded = pcall(cjson.decode, payload)
  if ok and type(decoded) == 'table' and type(decoded.kind) == 'string' then return decoded.kind end
  return nil
end

-- Whether limits_hold said 'back' for the job at ids[last] (see lib/limits.lua): then it and the
-- ids of the window not looked at yet, ids[1..last], go back onto the claim end of `list` in
-- their order, and the caller claims no more from it.
local function back_held(c, list, ids, last)
  if not c.stop_at and not c.turn_back then return false end
  redis.call('RPUSH', list, unpack(ids, 1, last))
  return true
end

local function claim_from(c, list, wanted, admission, out)
  local now_text = int_text(c.now)
  local target = c.claimed + wanted
  -- Bounded: every pass takes ids off the list; dropped ids cannot keep the loop going past this.
  local budget = wanted * 2 + 16
  while c.claimed < target and budget > 0 and not c.stop_at do
    local asked = math.min(target - c.claimed, budget)
    local ids = redis.call('LRANGE', list, -asked, -1)
    if #ids == 0 then return true end
    budget = budget - #ids
    -- Oldest first: the rightmost id of the window.
    local reads, keys = {}, {}
    for i = #ids, 1, -1 do
      local key = c.job_prefix .. ids[i]
      -- completed_at_ms (f[12]) says the hash finished once and may carry a TTL. The group
      -- (f[13]) and cost (f[14]) matter only to limits, so a queue without admission state does
      -- not ask.
      local f
      if c.traced then
        f = read_hash(key, 'status', 'visibility_ms', 'attempts', 'max_attempts', 'id', 'payload', 'kind', 'enqueued_at_ms', 'last_error', 'expires_at_ms', 'priority', 'completed_at_ms', 'group', 'cost', 'traceparent')
      elseif admission then
        f = read_hash(key, 'status', 'visibility_ms', 'attempts', 'max_attempts', 'id', 'payload', 'kind', 'enqueued_at_ms', 'last_error', 'expires_at_ms', 'priority', 'completed_at_ms', 'group', 'cost')
      else
        f = read_hash(key, 'status', 'visibility_ms', 'attempts', 'max_attempts', 'id', 'payload', 'kind', 'enqueued_at_ms', 'last_error', 'expires_at_ms', 'priority', 'completed_at_ms')
      end
      reads[#reads + 1] = f or false
      keys[#keys + 1] = key
    end
    redis.call('LTRIM', list, 0, -#ids - 1)
    local moved, lease_args, held_back = {}, { '+inf', LEASE_INDEX_ANCHOR }, false
    for n = 1, #reads do
      local id, f = ids[#ids + 1 - n], reads[n]
      -- job_status's rule (no status, id or payload: no job; no status: pending), applied to the
      -- one HMGET above rather than through job_status, which would read the hash a second time.
      local status = f and (f[1] or f[5] or f[6]) and (f[1] or 'pending')
      if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then
        c.dropped = c.dropped + 1
      elseif f[10] and tonumber(f[10]) and tonumber(f[10]) <= c.now then
        c.expired = c.expired + 1
        dead_letter(c, id, 'JOBS_EXPIRED: not started before its expiry at ' .. f[10] .. ' ms (Redis clock)', 'JOBS_EXPIRED', 'expired')
      elseif admission and admission.kinds and admission.kinds[f[7] or payload_kind(f[6]) or ''] then
        -- A paused kind: set aside until it resumes (the oldest at the right, as in pending).
        redis.call('LPUSH', parked_list(c.prefix, f[7] or payload_kind(f[6])), id)
      elseif admission and admission.carriers and f[11] and (tonumber(f[11]) or 0) < 0 then
        -- A carrier of a lower priority (see push_pending): into its list, at the claim end
        -- (every job there came after it), behind the pending jobs.
        local level = tonumber(f[11])
        redis.call('RPUSH', priority_list(c.prefix, level), id)
        redis.call('ZADD', levels_set(c.prefix), level, level)
      elseif admission and admission.lim and limits_hold(c, admission.lim, id, f[7] or payload_kind(f[6]), f[13] or nil, job_cost(f[14])) then
        -- Held back by a limit (see lib/limits.lua): parked, or filed in its group's list; or
        -- first in line still ('back'): it and the rest of the window go back as they were.
        if back_held(c, list, ids, #ids + 1 - n) then
          held_back = true
          break
        end
      else
        c.claimed = c.claimed + 1
        local key = keys[n]
        local token = c.token_base .. string.format('%04x', c.claimed)
        local visibility = tonumber(f[2]) or c.visibility
        local deadline = c.now + visibility
        local deadline_s = c.deadline_text[visibility]
        if not deadline_s then
          deadline_s = int_text(deadline)
          c.deadline_text[visibility] = deadline_s
        end
        local attempts = (tonumber(f[3]) or 0) + 1
        -- attempts: not HINCRBY, since a hand-written non-number would abort the script halfway.
        if f[4] then
          redis.call('HSET', key, 'status', 'processing', 'claim_token', token, 'claimed_at_ms', now_text,
            'lease_expires_at_ms', deadline_s, 'attempts', int_text(attempts))
        else
          redis.call('HSET', key, 'status', 'processing', 'claim_token', token, 'claimed_at_ms', now_text,
            'lease_expires_at_ms', deadline_s, 'attempts', int_text(attempts), 'max_attempts', c.max_attempts)
        end
        -- A hash that carried a TTL (left over from an earlier life) must not expire mid-job.
        -- Only a hash that finished once can carry one: every TTL on a job's hash is set as it
        -- completes (completed_at_ms) or fails for good (last_error), ours or a recipe client's.
        if f[9] or f[12] then redis.call('PERSIST', key) end
        if admission and admission.lim then limits_started(c, admission.lim, id, key, token, deadline_s, f[7] or payload_kind(f[6]), f[13] or nil, job_cost(f[14])) end
        log_event(c.log, id, 'claimed', attempts, c.worker, '')
        moved[#moved + 1] = id
        lease_args[#lease_args + 1] = deadline_s
        lease_args[#lease_args + 1] = id
        local at = #out
        out[at + 1], out[at + 2], out[at + 3], out[at + 4], out[at + 5] = id, token, attempts, f[4] or c.max_attempts, deadline
        out[at + 6], out[at + 7], out[at + 8], out[at + 9], out[at + 10] = f[6] or false, f[7] or false, f[8] or false, f[9] or false, f[11] or false
        if c.traced then out[at + 11] = f[15] or false end
      end
    end
    if #moved > 0 then
      -- Oldest pushed first, so processing keeps the order single moves would give it.
      redis.call('LPUSH', c.processing, unpack(moved))
      redis.call('ZADD', c.leases, unpack(lease_args))
    end
    if held_back then return false end
    -- A short window took all of the list (nothing else writes while a script runs): it is dry.
    if #ids < asked then return true end
  end
  return false
end

-- Claims from the levels in `levels` (from ZRANGE, highest first) until `wanted` are claimed;
-- a level whose list ran dry leaves the levels set.
local function claim_levels(c, levels, wanted, admission, out)
  for _, level in ipairs(levels) do
    local left = wanted - c.claimed
    if left <= 0 then return end
    local list = priority_list(c.prefix, tonumber(level))
    if claim_from(c, list, left, admission, out) or redis.call('LLEN', list) == 0 then
      redis.call('ZREM', levels_set(c.prefix), level)
    end
  end
end

-- Claims up to `wanted` jobs in priority order: the levels above 0 highest first, then pending
-- (level 0, the recipe's list), then the levels below 0; FIFO within each. One read (the admission
-- hash) tells a queue without admission state to go straight to pending. A paused queue claims
-- nothing and sets out[2] to CLAIM_PAUSED; jobs of a paused kind are parked (see admission.lua).
-- Limits and groups in use (lib/limits.lua): a queue over its rate claims nothing and sets
-- out[2] to minus the time it may start again (at most CLAIM_LIMITED_MAX); jobs of a kind
-- without room are parked; grouped jobs are claimed in turns between groups after the lists;
-- out[2] becomes the earliest time a held job may start when that comes before the next
-- delayed job.
-- Returns the count claimed.
local function claim_ready(c, wanted, out)
  c.claimed, c.dropped, c.expired, c.deadline_text = 0, 0, 0, {}
  local state = redis.call('HGETALL', c.admission)
  if #state == 0 then
    claim_from(c, c.pending, wanted, nil, out)
  else
    load_limits()
    local paused, priorities, kinds, lim = false, false, nil, nil
    for i = 1, #state, 2 do
      local field = state[i]
      if field == 'paused' then
        paused = true
      elseif field == 'priorities' then
        priorities = true
      else
        local kind = paused_kind_of(field)
        if kind then
          kinds = kinds or {}
          kinds[kind] = true
        else
          lim = read_limit(lim, field, state[i + 1])
        end
      end
    end
    if paused then
      out[2] = CLAIM_PAUSED
      return 0
    end
    local admission = { kinds = kinds, lim = lim, key = c.admission }
    if lim then
      wanted = limits_before(c, admission, wanted, out)
      if wanted == 0 then return 0 end
    end
    if not priorities then
      claim_from(c, c.pending, wanted, admission, out)
    else
      local levels_key = levels_set(c.prefix)
      -- Carriers at the claim end of pending go to their lists first (LMOVE: never off both),
      -- so that the jobs of their level that came after them cannot overtake them.
      for _ = 1, 16 do
        local tail = redis.call('LINDEX', c.pending, -1)
        local f = tail and read_hash(c.job_prefix .. tail, 'priority')
        local level = f and tonumber(f[1])
        if not level or level == 0 then break end
        redis.call('LMOVE', c.pending, priority_list(c.prefix, level), 'RIGHT', 'RIGHT')
        redis.call('ZADD', levels_key, level, level)
      end
      claim_levels(c, redis.call('ZRANGE', levels_key, '+inf', '(0', 'BYSCORE', 'REV'), wanted, admission, out)
      local dry = false
      if c.claimed < wanted then
        dry = claim_from(c, c.pending, wanted - c.claimed, { kinds = kinds, carriers = true, lim = lim, key = c.admission }, out)
          or redis.call('LLEN', c.pending) == 0
      end
      if c.claimed < wanted then
        claim_levels(c, redis.call('ZRANGE', levels_key, '(0', '-inf', 'BYSCORE', 'REV'), wanted, admission, out)
      end
      -- Nothing of another priority waits any more: claims go back to reading pending alone.
      if dry and redis.call('ZCARD', levels_key) == 0 then
        redis.call('HDEL', c.admission, 'priorities')
      elseif redis.call('LLEN', c.pending) == 0 then
        keep_carrier(c.prefix, c.pending)
      end
    end
    if lim then
      if lim.groups then
        claim_groups(c, lim, wanted, function(list) return claim_from(c, list, 1, admission, out) end)
        -- No group waits any more: claims stop taking turns between groups.
        if redis.call('ZCARD', groups_set(c.prefix)) == 0 then redis.call('HDEL', c.admission, 'groups') end
      end
      limits_after(c, out)
    end
  end
  if c.dropped > 0 then redis.call('HINCRBY', c.stats, 'dropped_total', c.dropped) end
  if c.expired > 0 then redis.call('HINCRBY', c.stats, 'expired_total', c.expired) end
  return c.claimed
end
