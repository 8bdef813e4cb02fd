#!lua
--[[
  enqueue-flow: writes a flow atomically: a tree of jobs in which each parent runs once its
  children have settled (see lib/flow-children.lua). A job without children is written as
  enqueue.lua writes one (pending, or delayed); a parent waits in status waiting-children, in
  no list, with children_left, the children's ids and a waiting entry per child. The tree comes
  parents first: a job's parent is written before it. Each job is logged 'enqueued' (a child
  with its parent's id in extra field parent), a parent then 'waiting-children' (see
  lib/log-event.lua). Runs only when Redis has memory to spare (no allow-oom flag). A root with a
  dedupe key (see lib/dedupe.lua) held by a job in one of its states absorbs the whole flow:
  nothing is written, and that job's id is returned.

  KEYS[1]   pending: pending list
  KEYS[2]   delayed: delayed sorted set (member: id, score: due time in ms)
  KEYS[3]   stats: stats hash
  KEYS[4]   log: the event log stream (see lib/log-event.lua)
  KEYS[5..] jobKeys: the root's dedupe key, when it has one (no other job of a flow takes one)
  ARGV[1]   count: number of jobs N
  ARGV[2]   jobPrefix: job key prefix ("queue:{NAME}:job:"): a job's hash is this plus its id
  ARGV[3]   wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[4]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[5]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[6]   metrics: '1' counts the jobs written, per kind, in the metrics history (see
            lib/metrics.lua); '0' = off
  ARGV[7..] jobs: per job, 6 values: id, payload JSON, kind, options as in enqueue.lua ('' or
            a JSON object of named fields, without idempotencyTtlMs),
            the parent's id ('' for the root), and on-child-failure ('fail' or 'ignore'; '' for
            a job without children)
  Returns:  { FLOW_WRITTEN }, also when this same call ran before (the client resent it after a
            lost reply), or { FLOW_DEDUPED, the id of the job that absorbed the flow }, also for
            a resend of a call that was absorbed
  Reply:    [code: number, owner?: string]
  Errors:   "JOBS_DUPLICATE_ID <id>" when a job hash with one of the ids exists (nothing is
            written)
  Publishes: on the wake channel, the ms until the earliest job it delays is due, when that
            job is now the first one due (see lib/due-notice.lua)
]]
--@include lib/now.lua
--@include lib/due-notice.lua
--@include lib/write-job.lua
--@include lib/flow-children.lua
--@include lib/metrics.lua
--@include lib/dedupe.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_flow_children()
local FIELDS = 6
local FIRST_JOB = 7
local FLOW_WRITTEN = 1 --@export
local FLOW_DEDUPED = 2 --@export
local n = tonumber(ARGV[1])
local job_prefix = ARGV[2]
local prefix = ARGV[4]
local now = now_ms()
local now_text = int_text(now)
local log = open_log(KEYS[4], ARGV[5], job_prefix)
-- Jobs written per kind, for the metrics history (nil when it is off).
local by_kind = nil
if ARGV[6] == '1' then by_kind = {} end

-- A resent call finds its root written with the same payload: it was written the first time.
local root_key = job_prefix .. ARGV[FIRST_JOB]
if redis.call('EXISTS', root_key) == 1 and redis.call('HGET', root_key, 'payload') == ARGV[FIRST_JOB + 1] then
  -- Rewriting one value as it is makes this call a write, so a WAIT behind it waits for the flow.
  redis.call('HSET', root_key, 'id', ARGV[FIRST_JOB])
  return { FLOW_WRITTEN }
end

-- The root's dedupe key: a flow absorbed into the job that holds it writes nothing (a resend
-- finds the marker of the first run: lib/dedupe.lua).
local root_options = ARGV[FIRST_JOB + 3]
local root_dedupe = root_options ~= '' and string.find(root_options, '"dedupeStates"', 1, true) and cjson.decode(root_options)
if root_dedupe then
  load_dedupe()
  local marker = dedupe_marker(prefix, ARGV[FIRST_JOB])
  local owner = redis.call('GET', marker)
  if owner then
    redis.call('SET', marker, owner, 'XX', 'KEEPTTL')
    return { FLOW_DEDUPED, owner }
  end
  local status
  owner, status = dedupe_owner(KEYS[5], root_dedupe.dedupeStates, job_prefix, false)
  if owner then
    dedupe_absorb(prefix, job_prefix, owner, status, ARGV[FIRST_JOB], ARGV[FIRST_JOB + 1], root_dedupe.dedupeReplace == 1, 0, 0, KEYS[2], now, log)
    return { FLOW_DEDUPED, owner }
  end
end

-- Pass 1: check before writing anything. Children counted per parent.
local children, ids = {}, {}
for j = 0, n - 1 do
  local base = FIRST_JOB + j * FIELDS
  if redis.call('EXISTS', job_prefix .. ARGV[base]) == 1 then
    return redis.error_reply('JOBS_DUPLICATE_ID ' .. ARGV[base])
  end
  local parent = ARGV[base + 4]
  if parent ~= '' then
    children[parent] = (children[parent] or 0) + 1
    ids[parent] = ids[parent] or {}
    table.insert(ids[parent], ARGV[base])
  end
end

-- Pass 2: write.
local pushed = {}
local earliest = nil
for j = 0, n - 1 do
  local base = FIRST_JOB + j * FIELDS
  local id, payload, kind, options = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local parent, on_failure = ARGV[base + 4], ARGV[base + 5]
  local delay, run_at, max_attempts, visibility, idem, priority, expiry, traceparent, group, cost = job_options(options, now, 'enqueue-flow')
  -- A flow's jobs take no idempotency key.
  if idem ~= 0 then error('enqueue-flow: malformed job options "' .. options .. '"') end
  local job_key = job_prefix .. id
  local due = now + tonumber(delay)
  if run_at ~= '0' then due = tonumber(run_at) end
  local waiting = children[id]
  local status = 'pending'
  if waiting then status = 'waiting-children' elseif due > now then status = 'delayed' end
  write_job_hash(job_key, id, payload, kind, status, now_text, max_attempts, visibility, traceparent, priority, expiry, group, cost)
  if j == 0 and root_dedupe then dedupe_take(KEYS[5], root_dedupe.dedupeStates, root_dedupe.dedupePeriodMs or 0, false, job_key, id, now) end
  if by_kind then by_kind[kind] = (by_kind[kind] or 0) + 1 end
  if parent ~= '' then
    redis.call('HSET', job_key, 'parent_id', parent)
    redis.call('HSET', job_prefix .. parent, 'child:' .. id, flow_entry('waiting', kind))
  end
  if waiting then
    redis.call('HSET', job_key, 'children_left', waiting, 'on_child_failure', on_failure, 'children',
      cjson.encode(ids[id]))
    index_waiting_parent(prefix, id, now)
    -- Kept for when the children are done (see flow_start_parent).
    if due > now then redis.call('HSET', job_key, 'run_at_ms', int_text(due)) end
  elseif status == 'delayed' then
    local due_text = int_text(due)
    redis.call('HSET', job_key, 'run_at_ms', due_text)
    redis.call('ZADD', KEYS[2], due_text, id)
    if not earliest or due < earliest then earliest = due end
  elseif priority ~= '0' or group then
    push_pending(prefix, KEYS[1], id, priority, false, group)
  else
    pushed[#pushed + 1] = id
  end
  if log then
    if parent ~= '' then
      log_event(log, id, 'enqueued', '0', '', '', { 'parent', parent })
    else
      log_event(log, id, 'enqueued', '0', '', '')
    end
    if waiting then log_event(log, id, 'waiting-children', '0', '', '', { 'children', int_text(waiting) }) end
  end
end
-- In slices: unpack is bounded by Lua's stack.
for first = 1, #pushed, 1000 do
  redis.call('LPUSH', KEYS[1], unpack(pushed, first, math.min(first + 999, #pushed)))
end
redis.call('HINCRBY', KEYS[3], 'enqueued_total', n)
if by_kind then
  load_metrics()
  for kind, count in pairs(by_kind) do metrics_add(prefix, kind, now, { 1, int_text(count) }) end
end
if earliest then notice_due(KEYS[2], ARGV[3], earliest, now) end
return { FLOW_WRITTEN }
