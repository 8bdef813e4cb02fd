--@include lib/read-hash.lua
--@include lib/now.lua
--@include lib/log-event.lua
-- Claims up to `wanted` jobs from the claim end of pending (the right): each id moves to the
-- head of processing and its hash is stamped in the same atomic step: status=processing, a
-- fresh claim_token (16 hex digits: a random 12-digit base per call and a 4-digit claim number), claimed_at_ms, attempts+1, a
-- lease (deadline = now + the job's visibility) in the lease index. There is no moment at which
-- a claimed job lacks its stamp (the recipe's B1). An id whose hash is gone, or whose hash says
-- the job already finished, is dropped from pending and not returned (nothing can run without a
-- payload, and a finished job must not run twice).
--
-- Every read of a pass comes before its first write, so an error (a Redis user lacking a
-- permission) leaves pending as it was: ids are never taken off pending without landing in
-- processing.
--
-- Appends CLAIM_STRIDE values per claimed job to `out`: id, token, attempts, max_attempts,
-- lease deadline, payload, kind, enqueued_at_ms, last_error (a missing field is nil).
-- Each claim is logged as 'claimed' by `worker` (see lib/log-event.lua; `log` nil: the log is off).
-- Returns the count claimed.
local CLAIM_STRIDE = 9 --@export
local function claim_jobs(pending, processing, leases, stats, job_prefix, default_visibility, default_max_attempts, wanted, token_base, now, out, log, worker)
  local claimed, dropped = 0, 0
  local now_text = int_text(now)
  -- The lease deadline of each visibility seen, as text (most jobs share the default).
  local deadline_text = {}
  -- Bounded: every pass takes ids off pending; dropped ids cannot keep the loop going past this.
  local budget = wanted * 2 + 16
  while claimed < wanted and budget > 0 do
    local asked = math.min(wanted - claimed, budget)
    local ids = redis.call('LRANGE', pending, -asked, -1)
    if #ids == 0 then break end
    budget = budget - #ids
    -- Oldest first: the rightmost id of the window.
    local reads = {}
    for i = #ids, 1, -1 do
      local f = read_hash(job_prefix .. ids[i], 'status', 'visibility_ms', 'attempts', 'max_attempts', 'id', 'payload', 'kind', 'enqueued_at_ms', 'last_error')
      reads[#reads + 1] = f or false
    end
    redis.call('LTRIM', pending, 0, -#ids - 1)
    local moved, lease_args = {}, {}
    for n = 1, #reads do
      local id, f = ids[#ids + 1 - n], reads[n]
      local status = f and (f[1] or f[5] or f[6]) and (f[1] or 'pending')
      if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then
        dropped = dropped + 1
      else
        claimed = claimed + 1
        local key = job_prefix .. id
        local token = token_base .. string.format('%04x', claimed)
        local visibility = tonumber(f[2]) or default_visibility
        local deadline = now + visibility
        local deadline_s = deadline_text[visibility]
        if not deadline_s then
          deadline_s = int_text(deadline)
          deadline_text[visibility] = deadline_s
        end
        local attempts = (tonumber(f[3]) or 0) + 1
        -- attempts: not HINCRBY, since a hand-written non-number would abort the script halfway.
        if f[4] then
          redis.call('HSET', key, 'status', 'processing', 'claim_token', token, 'claimed_at_ms', now_text,
            'lease_expires_at_ms', deadline_s, 'attempts', int_text(attempts))
        else
          redis.call('HSET', key, 'status', 'processing', 'claim_token', token, 'claimed_at_ms', now_text,
            'lease_expires_at_ms', deadline_s, 'attempts', int_text(attempts), 'max_attempts', default_max_attempts)
        end
        -- A hash that carried a TTL (left over from an earlier life) must not expire mid-job.
        redis.call('PERSIST', key)
        log_event(log, id, 'claimed', attempts, worker, '')
        moved[#moved + 1] = id
        lease_args[#lease_args + 1] = deadline_s
        lease_args[#lease_args + 1] = id
        local at = #out
        out[at + 1], out[at + 2], out[at + 3], out[at + 4], out[at + 5] = id, token, attempts, f[4] or default_max_attempts, deadline
        out[at + 6], out[at + 7], out[at + 8], out[at + 9] = f[6] or false, f[7] or false, f[8] or false, f[9] or false
      end
    end
    if #moved > 0 then
      -- Oldest pushed first, so processing keeps the order single moves would give it.
      redis.call('LPUSH', processing, unpack(moved))
      redis.call('ZADD', leases, unpack(lease_args))
    end
    -- A short window took all of pending (nothing else writes while a script runs): no need to look again.
    if #ids < asked then break end
  end
  if dropped > 0 then redis.call('HINCRBY', stats, 'dropped_total', dropped) end
  return claimed
end
