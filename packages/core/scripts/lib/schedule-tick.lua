--@include lib/now.lua
--@include lib/write-job.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua
--@include lib/metrics.lua
--@include lib/dedupe.lua
-- Runs one tick of a schedule: enqueues its job as the enqueue script enqueues a job due now
-- (the same hash through write_job_hash, with the schedule's job options, then the same place
-- through push_pending: its priority's list, its group's turn), with an id made of the
-- schedule's id and the tick ("sched:<id>:<tick ms>"), so a tick can never make two jobs, and
-- counts the run on the schedule; the job is logged 'enqueued' (`log`: see lib/log-event.lua,
-- nil when off). `prefix`: the queue's key prefix, for the admission keys. With `metrics`, or
-- when the queue has a metrics history, the job is counted in it (see lib/metrics.lua).
-- A schedule with a dedupe key (its `dedupe_name`, see lib/dedupe.lua) whose key is held by a
-- job in one of its states enqueues nothing: the tick is absorbed into that job, whose id is
-- returned (and recorded as the schedule's last job); else its job takes the key.
-- Returns the job's id.
local function run_schedule_tick(schedule_key, pending, stats, prefix, job_prefix, tick, now, log, metrics)
  local s = redis.call('HMGET', schedule_key, 'id', 'kind', 'payload', 'max_attempts', 'visibility_ms', 'priority', 'group', 'ttl_ms',
    'dedupe_name', 'dedupe_states', 'dedupe_period_ms', 'dedupe_replace')
  local tick_text = int_text(tick)
  local job_id = 'sched:' .. s[1] .. ':' .. tick_text
  local job_key = job_prefix .. job_id
  local dedupe_key, owner = nil, nil
  if s[9] and s[9] ~= '' and redis.call('EXISTS', job_key) == 0 then
    load_dedupe()
    dedupe_key = dedupe_key_of(prefix, s[9])
    -- A tick run again after a lost reply answers as it did the first time.
    owner = redis.call('GET', dedupe_marker(prefix, job_id))
    if not owner then
      local status
      owner, status = dedupe_owner(dedupe_key, s[10], job_prefix, false)
      if owner then dedupe_absorb(prefix, job_prefix, owner, status, job_id, s[3], s[12] == '1', 0, 0, nil, now, log) end
    end
  end
  if owner then
    job_id = owner
  elseif redis.call('EXISTS', job_key) == 0 then
    -- A schedule written before job options were stored has none of their fields: defaults.
    local priority = s[6] or '0'
    local group = s[7] or ''
    local expiry = 0
    local ttl = tonumber(s[8] or '0')
    if ttl > 0 then expiry = now + ttl end
    write_job_hash(job_key, job_id, s[3], s[2], 'pending', int_text(now), s[4] or '0', s[5] or '0', nil, priority, expiry, group)
    redis.call('HSET', job_key, 'schedule_id', s[1], 'scheduled_for_ms', tick_text)
    if dedupe_key then dedupe_take(dedupe_key, s[10], tonumber(s[11]) or 0, false, job_key, job_id, now) end
    push_pending(prefix, pending, job_id, priority, false, group)
    redis.call('HINCRBY', stats, 'enqueued_total', 1)
    -- Counted with `metrics`, or when the queue keeps a history already: a tick fired by a
    -- runner whose queue options say nothing of it (a reclaimer's) is counted all the same.
    if s[2] then
      load_metrics()
      if metrics or redis.call('EXISTS', metrics_kinds(prefix)) == 1 then metrics_add(prefix, s[2], now, { 1, '1' }) end
    end
    log_event(log, job_id, 'enqueued', '0', '', '')
  end
  redis.call('HINCRBY', schedule_key, 'runs', 1)
  redis.call('HSET', schedule_key, 'last_run_ms', tick_text, 'last_job_id', job_id)
  return job_id
end
