--@include lib/now.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua
--@lazy: loaded where a job's hash names a batch, and by the batch scripts.
-- Batches: jobs enqueued under one batch id, and up to three callback jobs. A batch is a hash,
-- `<prefix>batch:<id>` (keys.ts's BATCH_KEY_SUFFIXES), holding:
--   total, succeeded, failed, cancelled  counts: jobs added, and those that ended each way
--   sealed = '1'                  no more jobs may be added; the batch can finish
--   cb_kind:<cb>, cb_payload:<cb>, cb_options:<cb>  the callback <cb> (success, complete or
--                                 death): kind, payload JSON, and the kind's defaults as
--                                 'maxAttempts,visibilityMs,priority' (0: the queue's)
--   fired:<cb> = job id           the callback's job was enqueued (once: HSETNX)
--   created_at_ms, sealed_at_ms, finished_at_ms
-- Each job added names its batch in its hash's `batch`; the script that ends it counts it once
-- (the hash's `batch_end` is set with HSETNX, so a redriven job is not counted again). The
-- callbacks: `death` when the first job fails for good; once the batch is sealed and every job
-- ended, `complete`, and `success` too when every job succeeded. A callback is a job with the
-- fixed id `batch:<id>:<cb>`, enqueued in the same call that made its condition true; `fired`
-- makes that happen once, whatever resends or second ends follow. The batches index,
-- `<prefix>batches`, scores each batch by when its hash expires (ms; +inf until it finishes).

-- How long a finished batch's hash is kept, in seconds (a week).
local BATCH_KEEP_SECONDS = 604800 --@export

local function batch_key(prefix, id)
  return prefix .. 'batch:' .. id
end

local function batches_index(prefix)
  return prefix .. 'batches'
end

-- Enqueues callback `cb` of batch `id` (hash at `key`) if it has one and it has not fired yet.
-- ctx: { prefix, job_prefix, pending, stats, now, log }.
local function batch_fire(ctx, key, id, cb)
  local c = redis.call('HMGET', key, 'cb_kind:' .. cb, 'cb_payload:' .. cb, 'cb_options:' .. cb)
  if not c[1] then return end
  local job_id = 'batch:' .. id .. ':' .. cb
  if redis.call('HSETNX', key, 'fired:' .. cb, job_id) == 0 then return end
  local job_key = ctx.job_prefix .. job_id
  -- The hash lib/write-job.lua's write_job_hash writes (not included here: the scripts that end
  -- jobs would define it on every run), with the kind's defaults the batch recorded at its open.
  redis.call('HSET', job_key, 'id', job_id, 'payload', c[2], 'status', 'pending', 'attempts', '0',
    'enqueued_at_ms', int_text(ctx.now), 'claim_token', '', 'kind', c[1], 'batch_callback', id)
  local max_attempts, visibility, priority = string.match(c[3] or '', '^(%d+),(%d+),(-?%d+)$')
  if max_attempts and max_attempts ~= '0' then redis.call('HSET', job_key, 'max_attempts', max_attempts) end
  if visibility and visibility ~= '0' then redis.call('HSET', job_key, 'visibility_ms', visibility) end
  priority = priority or '0'
  if priority ~= '0' then redis.call('HSET', job_key, 'priority', priority) end
  push_pending(ctx.prefix, ctx.pending, job_id, priority, false, nil)
  redis.call('HINCRBY', ctx.stats, 'enqueued_total', 1)
  log_event(ctx.log, job_id, 'enqueued', '0', '', '')
end

-- A sealed batch whose jobs all ended fires `complete` (and `success` when none failed or was
-- cancelled), and keeps its hash BATCH_KEEP_SECONDS more.
local function batch_check(ctx, key, id)
  local b = redis.call('HMGET', key, 'sealed', 'total', 'succeeded', 'failed', 'cancelled', 'finished_at_ms')
  if b[1] ~= '1' or b[6] then return end
  local total, succeeded = tonumber(b[2] or '0'), tonumber(b[3] or '0')
  if succeeded + tonumber(b[4] or '0') + tonumber(b[5] or '0') < total then return end
  if succeeded == total then batch_fire(ctx, key, id, 'success') end
  batch_fire(ctx, key, id, 'complete')
  redis.call('HSET', key, 'finished_at_ms', int_text(ctx.now))
  redis.call('EXPIRE', key, BATCH_KEEP_SECONDS)
  redis.call('ZADD', batches_index(ctx.prefix), ctx.now + BATCH_KEEP_SECONDS * 1000, id)
end

-- Job `job_id` (hash at `job_key`, still there) of batch `id` ends: `outcome` is 'succeeded',
-- 'failed' or 'cancelled'. Counted once per job; may fire the batch's callbacks (see above).
local function batch_job_ended(ctx, job_key, id, outcome)
  if redis.call('HSETNX', job_key, 'batch_end', outcome) == 0 then return end
  local key = batch_key(ctx.prefix, id)
  if redis.call('EXISTS', key) == 0 then return end
  redis.call('HINCRBY', key, outcome, 1)
  if outcome == 'failed' then batch_fire(ctx, key, id, 'death') end
  batch_check(ctx, key, id)
end
