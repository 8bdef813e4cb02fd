--@include lib/history.lua
--@include lib/events.lua
--@include lib/log-event.lua
--@include lib/flow-children.lua
--@include lib/job-trail.lua
--@include lib/dedupe.lua
--@include lib/batch.lua
-- Moves a job (already out of processing and out of the lease index) to the failed list with
-- its reason, expires its hash after the failed TTL (when there is one) and counts it. A job
-- trimmed off the far end of a capped failed list is counted in failed_dropped_total.
-- A child of a flow tells its parent (see lib/flow-children.lua), which may fail in turn.
-- Logs `event` ('failed' when nil) with `code` (see lib/log-event.lua). `error_json`: the error's
-- JSON form (see src/error-shape.ts) for last_error_json; nil: `code` and `reason` make it.
-- The job's trail (see lib/job-trail.lua) takes the hash's TTL, or none; its dedupe key is
-- released or kept with the hash (see lib/dedupe.lua); its batch counts it (lib/batch.lua).
-- ctx: { job_prefix, prefix, pending, failed, stats, cap, ttl, channel, now, log, worker (log
-- nil: off), and for a flow's parent: delayed, wake }
-- Its parent, kind, trail and dedupe key are read first: a capped history may delete its hash.
local function dead_letter(ctx, id, reason, code, event, error_json)
  local key = ctx.job_prefix .. id
  local f = redis.call('HMGET', key, 'parent_id', 'kind', 'trail')
  -- Its dedupe key and batch, where its trail field says it may have them (lib/job-trail.lua).
  local ends = f[3] and redis.call('HMGET', key, 'dedupe_key', 'batch')
  local flow = f[1] and f
  if not error_json then
    error_json = (code and code ~= '') and cjson.encode({ code = code, message = reason }) or cjson.encode({ message = reason })
  end
  redis.call('HSET', key, 'status', 'failed', 'claim_token', '', 'last_error', reason,
    'last_error_at_ms', ctx.now, 'failed_at_ms', ctx.now, 'last_error_json', error_json, 'trail', '1')
  redis.call('HDEL', key, 'lease_expires_at_ms')
  if ends and ends[1] then load_dedupe(); dedupe_end(ctx.prefix, key, id, ends[1], 'f', ctx.ttl, true) end
  if ends and ends[2] then load_batch(); batch_job_ended(ctx, key, ends[2], 'failed') end
  -- Logged before the history push, which may trim (delete) this very hash when the cap is 0.
  log_event(ctx.log, id, event or 'failed', nil, ctx.worker, code)
  push_history(ctx.failed, id, ctx.cap, ctx.job_prefix, 'failed', ctx.stats, ctx.prefix)
  if ctx.ttl > 0 then redis.call('EXPIRE', key, ctx.ttl) end
  if f[3] then load_job_trail(); trail_keep(key, ctx.ttl) end
  redis.call('HINCRBY', ctx.stats, 'failed_total', 1)
  publish_event(ctx.channel, id, 'failed')
  if flow then
    load_flow_children()
    flow_child_settled(ctx, id, flow[2], flow[1], 'failed', nil, reason, dead_letter)
  end
end
