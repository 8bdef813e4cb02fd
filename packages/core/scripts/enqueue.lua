#!lua
--[[
  enqueue: writes one or more jobs atomically. Each job gets its hash (the recipe's fields plus
  ours) and either goes onto the pending list (LPUSH, as the recipe does; a job of another
  priority than 0 onto its priority's list, see lib/admission.lua) or, when it is due later, into
  the delayed set. A job with an idempotency key whose key is still held is not
  written: the id of the job that holds the key is returned instead. So is a job whose dedupe
  key is owned by a job in one of the states it names (see lib/dedupe.lua): it is absorbed into
  that job, which may take its payload and (debounce) wait longer.
  Runs only when Redis has memory to spare (no allow-oom flag): under maxmemory with noeviction
  the whole call is refused before it writes anything.

  KEYS[1]   pending: pending list
  KEYS[2]   delayed: delayed sorted set (member: id, score: due time in ms)
  KEYS[3]   stats: stats hash
  KEYS[4]   log: the event log stream (see lib/log-event.lua)
  KEYS[5..] jobKeys: per job in job order, its idempotency key if it has one, then its dedupe
            key if it has one
  ARGV[1]   count: number of jobs N
  ARGV[2]   jobPrefix: job key prefix ("queue:{NAME}:job:"): a job's hash is this plus its id
  ARGV[3]   wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[4]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[5]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[6]   metrics: '1' counts the jobs written, per kind, in the metrics history (see
            lib/metrics.lua); '0' = off
  ARGV[7..] jobs: per job, 4 values: id, payload JSON, kind, options: '' for none, or a JSON
            object of named fields, each absent when it has its default (see lib/write-job.lua):
            delayMs, runAtMs (ms since the epoch), maxAttempts, visibilityMs (0 or absent: the
            queue's default), idempotencyTtlMs (the job has an idempotency key), priority (may
            be negative), ttlMs, expiresAtMs, whole numbers; traceparent, the W3C traceparent
            stored on the job (checked by the caller); group, the job's group (see
            lib/limits.lua: it waits in its group's turn); cost, its weight against rate
            limits (a whole number above 1); with a dedupe key: dedupeStates (the states it
            holds in, see lib/dedupe.lua), dedupePeriodMs, dedupeReplace (1: take the payload
            of the jobs absorbed), debounceMs and debounceMaxWaitMs (the job is debounced: its
            delayMs is debounceMs); batch, the id of the open batch the job joins (see
            lib/batch.lua)
  Returns:  flat array, per job: id, ENQUEUE_WRITTEN if written (now, or by an earlier run of this
            same call), ENQUEUE_HELD if an earlier job holds its idempotency key, or
            ENQUEUE_DEDUPED if it was absorbed (now, or by an earlier run of this same call)
            into the job whose id is given
  Reply:    (string | number)[]
  Errors:   "JOBS_DUPLICATE_ID <id>" when a job hash with that id exists with another payload
            (nothing is written); "JOBS_BATCH_CLOSED <batch>" when a job joins a batch that
            is sealed or was never opened (nothing is written)
  Publishes: on the wake channel, the ms until the earliest job it delays is due, when that
            job is now the first one due (see lib/due-notice.lua)
]]
--@include lib/now.lua
--@include lib/due-notice.lua
--@include lib/write-job.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua
--@include lib/metrics.lua
--@include lib/dedupe.lua
--@include lib/batch.lua

local FIELDS = 4
local FIRST_JOB = 7
local ENQUEUE_WRITTEN = 1 --@export
local ENQUEUE_HELD = 0 --@export
local ENQUEUE_DEDUPED = 2 --@export
local n = tonumber(ARGV[1])
local job_prefix = ARGV[2]
local prefix = ARGV[4]
local now = now_ms()
local now_text = int_text(now)
local log = open_log(KEYS[4], ARGV[5], job_prefix)
-- Jobs written per kind, for the metrics history (nil when it is off).
local by_kind = nil
if ARGV[6] == '1' then by_kind = {} end

-- Pass 1: check before writing anything, so a refused call leaves nothing half-written. A job
-- whose hash exists with the same payload is this very call run again (the client resent it
-- after a lost reply): it was written the first time and is not written twice. So is a job
-- with a dedupe key whose marker (lib/dedupe.lua) names the job it was absorbed into.
local replayed, absorbed = {}, {}
for j = 0, n - 1 do
  local base = FIRST_JOB + j * FIELDS
  local job_key = job_prefix .. ARGV[base]
  if redis.call('EXISTS', job_key) == 1 then
    if redis.call('HGET', job_key, 'payload') ~= ARGV[base + 1] then
      return redis.error_reply('JOBS_DUPLICATE_ID ' .. ARGV[base])
    end
    replayed[j] = true
  elseif ARGV[base + 3] ~= '' then
    if string.find(ARGV[base + 3], '"dedupeStates"', 1, true) then
      load_dedupe()
      absorbed[j] = redis.call('GET', dedupe_marker(prefix, ARGV[base]))
    end
    local batch = string.find(ARGV[base + 3], '"batch"', 1, true) and cjson.decode(ARGV[base + 3]).batch
    if batch then
      load_batch()
      if redis.call('HGET', batch_key(prefix, batch), 'sealed') ~= '0' then return redis.error_reply('JOBS_BATCH_CLOSED ' .. batch) end
    end
  end
end

-- Pass 2: write.
local out = {}
local pushed = {}
-- Jobs of other priorities, by level, and the levels in first-seen order.
local by_level, levels = {}, {}
local written = 0
-- The earliest due time of the jobs this call delays: waiting workers hear of it (see due-notice.lua).
local earliest = nil
local key_index = 5
for j = 0, n - 1 do
  local base = FIRST_JOB + j * FIELDS
  local id, payload, kind = ARGV[base], ARGV[base + 1], ARGV[base + 2]
  local delay_text, run_at_text, max_attempts, visibility_ms, idem_ms, priority, expiry, traceparent, group, cost, o = job_options(ARGV[base + 3], now, 'enqueue')
  local job_key = job_prefix .. id
  local holder = false
  local idem_key = false
  if idem_ms > 0 then
    idem_key = KEYS[key_index]
    key_index = key_index + 1
    if not replayed[j] and not absorbed[j] then holder = redis.call('GET', idem_key) end
  end
  -- The job's dedupe key, and the job that owns it when that one absorbs this one (the rarer
  -- options are looked at only when the job has options at all).
  local dedupe_key, owner, owner_status = false, false, nil
  if o and o.dedupeStates then
    owner = absorbed[j]
    load_dedupe()
    dedupe_key = KEYS[key_index]
    key_index = key_index + 1
    if not replayed[j] and not owner and not holder then
      owner, owner_status = dedupe_owner(dedupe_key, o.dedupeStates, job_prefix, (o.debounceMs or 0) > 0)
      if owner then
        dedupe_absorb(prefix, job_prefix, owner, owner_status, id, payload, o.dedupeReplace == 1, o.debounceMs or 0,
          o.debounceMaxWaitMs or 0, KEYS[2], now, log)
      end
    end
  end
  -- A new idempotency key names the job this enqueue made, or the one that absorbed it.
  if idem_key and not replayed[j] and not holder and not absorbed[j] then
    redis.call('SET', idem_key, owner or id, 'PX', idem_ms)
  end

  -- A replayed or deduplicated job writes nothing new, yet its reply acknowledges a write that
  -- another call made, maybe not replicated yet. Rewriting one value as it is makes this call a
  -- write too, so a WAIT behind it (durable mode) waits for the replicas to hold the job.
  if replayed[j] then
    redis.call('HSET', job_key, 'id', id)
    out[#out + 1] = id
    out[#out + 1] = ENQUEUE_WRITTEN
  elseif holder then
    redis.call('SET', idem_key, holder, 'XX', 'KEEPTTL')
    out[#out + 1] = holder
    out[#out + 1] = ENQUEUE_HELD
  elseif owner then
    -- A resend rewrites its marker as it is, for the same reason as a replayed job above.
    if absorbed[j] then redis.call('SET', dedupe_marker(prefix, id), owner, 'XX', 'KEEPTTL') end
    out[#out + 1] = owner
    out[#out + 1] = ENQUEUE_DEDUPED
  else
    local due = now + tonumber(delay_text)
    if run_at_text ~= '0' then due = tonumber(run_at_text) end
    local status = 'pending'
    if due > now then status = 'delayed' end
    write_job_hash(job_key, id, payload, kind, status, now_text, max_attempts, visibility_ms, traceparent, priority, expiry, group, cost)
    -- Named in the hash so that a removal (remove.lua) can release it.
    if idem_key then redis.call('HSET', job_key, 'idempotency_key', idem_key) end
    if o then
      if dedupe_key then dedupe_take(dedupe_key, o.dedupeStates, o.dedupePeriodMs or 0, (o.debounceMs or 0) > 0, job_key, id, now) end
      if o.batch then
        -- `trail` tells the scripts that end the job to count it (lib/job-trail.lua).
        redis.call('HSET', job_key, 'batch', o.batch, 'trail', '1')
        redis.call('HINCRBY', batch_key(prefix, o.batch), 'total', 1)
      end
    end
    if status == 'delayed' then
      local due_text = int_text(due)
      redis.call('HSET', job_key, 'run_at_ms', due_text)
      redis.call('ZADD', KEYS[2], due_text, id)
      if not earliest or due < earliest then earliest = due end
    elseif group then
      push_pending(prefix, KEYS[1], id, priority, false, group)
    elseif priority ~= '0' then
      if not by_level[priority] then
        by_level[priority] = {}
        levels[#levels + 1] = priority
      end
      local ids = by_level[priority]
      ids[#ids + 1] = id
    else
      -- Pushed together after the loop: one LPUSH of many puts them in the same order.
      pushed[#pushed + 1] = id
    end
    written = written + 1
    if by_kind then by_kind[kind] = (by_kind[kind] or 0) + 1 end
    log_event(log, id, 'enqueued', '0', '', '')
    out[#out + 1] = id
    out[#out + 1] = ENQUEUE_WRITTEN
  end
end
-- In slices: unpack is bounded by Lua's stack (a call may carry 10,000 jobs).
for first = 1, #pushed, 1000 do
  redis.call('LPUSH', KEYS[1], unpack(pushed, first, math.min(first + 999, #pushed)))
end
-- Each level's first job through push_pending (it may go onto pending, to wake blocked claims),
-- the rest straight onto the level's list behind it.
if #levels > 0 then load_admission() end
for _, level in ipairs(levels) do
  local ids = by_level[level]
  push_pending(prefix, KEYS[1], ids[1], level, false)
  if #ids > 1 then
    local list = priority_list(prefix, tonumber(level))
    for first = 2, #ids, 1000 do
      redis.call('LPUSH', list, unpack(ids, first, math.min(first + 999, #ids)))
    end
    redis.call('ZADD', levels_set(prefix), level, level)
  end
end
if written > 0 then redis.call('HINCRBY', KEYS[3], 'enqueued_total', written) end
if by_kind and written > 0 then
  load_metrics()
  for kind, count in pairs(by_kind) do metrics_add(prefix, kind, now, { 1, int_text(count) }) end
end
if earliest then notice_due(KEYS[2], ARGV[3], earliest, now) end
return out
