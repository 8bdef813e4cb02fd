--@include lib/holds-claim.lua
--@include lib/remove-from-list.lua
--@include lib/events.lua
--@include lib/history.lua
--@include lib/now.lua
--@include lib/log-event.lua
--@include lib/flow-children.lua
--@include lib/free-slots.lua
--@include lib/job-trail.lua
--@include lib/dedupe.lua
--@include lib/batch.lua
-- Deletes what a completed hash no longer holds: an earlier attempt's error (`errors`: the hash
-- had last_error; `trail`: it may have last_error_json), the running slots it gave back.
local function clear_fields(key, errors, slots, trail)
  local fields = {}
  if errors then fields[1], fields[2] = 'last_error', 'last_error_at_ms' end
  if slots then fields[#fields + 1] = 'slots' end
  if trail then fields[#fields + 1] = 'last_error_json' end
  redis.call('HDEL', key, unpack(fields))
end

-- Completes claimed jobs given as (id, token, result JSON) triples in argv from index `first`.
-- Each completion is fenced: the token must be non-empty and equal the job's claim_token, the
-- job must be in status processing, and its id must be in the processing list. Then the id
-- leaves processing (the batch in one go: see remove_many_from_list) and the lease index, the
-- hash records the result and clears claim_token (so a second complete, or a fail after
-- complete, does nothing), the id goes onto the capped completed history, the hash gets its
-- TTL, and the recipe's event is published.
-- ctx: { processing, completed, leases, stats, job_prefix, ttl, cap, channel, only_heard, now,
-- pending, delayed, wake, prefix, log, worker } (pending, delayed and wake start a flow's parent:
-- see lib/flow-children.lua; pending and prefix hand a freed running slot on: see
-- lib/free-slots.lua; log: see lib/log-event.lua, nil when off)
-- (only_heard '1': skip the events when nobody subscribes; see heard_channel)
-- With no history kept (cap 0) and none left over from an earlier cap, each hash would be
-- written and trimmed off again at once: it is deleted outright instead (the same end state).
-- A job with a trail (it failed or logged before, see lib/job-trail.lua) has it expired or
-- deleted with its hash, and its last error's JSON form cleared; the field that says so is read
-- with the fence's, so a job that never failed nor logged pays nothing more. The same field says
-- the job may have a dedupe key, released (or kept with the hash) as lib/dedupe.lua says, or a
-- batch, which counts it (lib/batch.lua): read then, and only then.
-- Appends per job CLAIM_DONE (completed), CLAIM_CANCELLED (cancelled while it ran) or NOT_OWNER
-- (not the caller's to complete otherwise; nothing changed) to `out`.
local function complete_jobs(ctx, argv, first, out)
  local done = {}
  -- Asking who listens takes two calls; for a lone completion, publishing outright takes one.
  local channel = ctx.channel
  if #argv - first + 1 > 3 then channel = heard_channel(ctx.channel, ctx.only_heard) end
  -- Fenced by token first (reading each job's parent and running slots in the same call); then
  -- the jobs that hold their claim leave processing in one go.
  local held, keys, parents, slots, trails, errors, voided = {}, {}, {}, {}, {}, {}, {}
  for i = first, #argv, 3 do
    local key = ctx.job_prefix .. argv[i]
    local owned, f = holds_claim(key, argv[i + 1], 'parent_id', 'slots', 'trail', 'last_error')
    held[#held + 1] = owned and argv[i]
    keys[#held] = key
    if not owned and f then voided[#held] = cancelled_claim(key, f[1], argv[i + 1]) end
    parents[#held] = owned and f[3]
    slots[#held] = owned and f[4]
    trails[#held] = owned and f[5]
    errors[#held] = owned and f[6]
  end
  local removed = remove_many_from_list(ctx.processing, held)
  local keep = ctx.cap > 0 or redis.call('LLEN', ctx.completed) > 0
  local now_text = int_text(ctx.now)
  local ttl_text = ctx.ttl > 0 and int_text(ctx.ttl)
  local gone = not keep and {} or nil
  for n = 1, #held do
    local i = first + (n - 1) * 3
    local id = argv[i]
    if removed[n] then
      local key = keys[n]
      -- Its dedupe key and batch, read while the hash is whole (lib/job-trail.lua: trail says they may exist).
      local ends = trails[n] and redis.call('HMGET', key, 'dedupe_key', 'batch')
      -- Logged before the hash may be deleted (no history kept): its attempt is read from it.
      log_event(ctx.log, id, 'completed', nil, ctx.worker, '')
      if parents[n] then
        load_flow_children()
        flow_child_settled(ctx, id, redis.call('HGET', key, 'kind'), parents[n], 'completed', argv[i + 2])
      end
      if keep then
        redis.call('HSET', key, 'status', 'completed', 'completed_at_ms', now_text, 'result', argv[i + 2],
          'claim_token', '')
        -- lease_expires_at_ms stays as the last lease's deadline (read as one only while processing).
        if errors[n] or slots[n] or trails[n] then clear_fields(key, errors[n], slots[n], trails[n]) end
        if ctx.ttl > 0 then redis.call('EXPIRE', key, ttl_text) end
        if trails[n] then
          load_job_trail()
          trail_keep(key, ttl_text or 0)
        end
      else
        gone[#gone + 1] = key
        if trails[n] then load_job_trail(); trail_add_keys(gone, key) end
      end
      if ends and ends[1] then load_dedupe(); dedupe_end(ctx.prefix, key, id, ends[1], 'c', ctx.ttl, keep) end
      if ends and ends[2] then load_batch(); batch_job_ended(ctx, key, ends[2], 'succeeded') end
      publish_event(channel, id, 'completed')
      if slots[n] then load_free_slots(); free_slots(ctx, id, slots[n]) end
      done[#done + 1] = id
      out[#out + 1] = CLAIM_DONE
    elseif voided[n] then
      out[#out + 1] = CLAIM_CANCELLED
    else
      out[#out + 1] = NOT_OWNER
    end
  end
  if #done > 0 then
    redis.call('ZREM', ctx.leases, unpack(done))
    if keep then
      push_history_many(ctx.completed, done, ctx.cap, ctx.job_prefix, 'completed', nil, ctx.prefix)
    else
      redis.call('DEL', unpack(gone))
    end
    redis.call('HINCRBY', ctx.stats, 'completed_total', #done)
  end
  return #done
end
