--@include lib/now.lua
--@include lib/read-hash.lua
-- The durable event log: every state change is appended, by the script that makes it, to the
-- queue's stream (queue:{NAME}:log, from keys.ts through KEYS), capped with XADD MAXLEN ~ so its
-- memory is bounded. An entry holds the job id, the event, the attempt, the worker's id and an
-- error code, never a payload or a result. The same fields in the same order on every entry, so
-- the stream stores their names once per node.
--
-- A job's own timeline is indexed in its hash: field `log_ids` holds the stream ids of its last
-- TIMELINE_CAP events, space-separated. It lives and dies with the hash (TTL, history trims,
-- deletes). log_event is called while the job's hash exists (else the field would make one);
-- a key holding another type gets its stream entry and no index.
--
-- open_log(key, maxlen, job_prefix): the log a script writes to, or nil when the log is off
-- (maxlen '0' or ''), so that with the log off log_event costs one comparison.
-- log_event(log, job_id, event, attempt, worker, code, extra, unindexed):
--   event: enqueued | claimed | progress | completed | retried | failed | reclaimed | cancelled |
--          expired | promoted | released | redriven | deduplicated, and the flows' own: waiting-children,
--          child-settled, children-done (see lib/flow-children.lua)
--   attempt: the attempt it concerns (number or text; nil: read from the hash), worker: the worker's id
--   ('' when none), code: an error code ('' when none), extra: nil or a table of more field,
--   value pairs (text); unindexed: true to keep the event out of the job's timeline index (progress).
--   Returns the stream id, or nil when the log is off.
local TIMELINE_CAP = 64 --@export

local function open_log(key, maxlen, job_prefix)
  if maxlen == '' or maxlen == '0' then return nil end
  return { key = key, maxlen = maxlen, job_prefix = job_prefix }
end

local function log_event(log, job_id, event, attempt, worker, code, extra, unindexed)
  if not log then return nil end
  local key = log.job_prefix .. job_id
  local f = read_hash(key, 'log_ids', 'attempts') or {}
  if attempt == nil then
    attempt = f[2] or ''
  elseif type(attempt) == 'number' then
    attempt = int_text(attempt)
  end
  local entry
  if extra then
    entry = redis.call('XADD', log.key, 'MAXLEN', '~', log.maxlen, '*', 'job', job_id, 'event', event,
      'attempt', attempt, 'worker', worker or '', 'code', code or '', unpack(extra))
  else
    entry = redis.call('XADD', log.key, 'MAXLEN', '~', log.maxlen, '*', 'job', job_id, 'event', event,
      'attempt', attempt, 'worker', worker or '', 'code', code or '')
  end
  if f[1] == nil or unindexed then return entry end
  local ids = f[1]
  if not ids or ids == '' then
    ids = entry
  else
    ids = ids .. ' ' .. entry
    -- Keep the last TIMELINE_CAP: drop the oldest id when one too many.
    local count, at = 0, 0
    repeat
      at = string.find(ids, ' ', at + 1, true)
      if at then count = count + 1 end
    until not at
    if count >= TIMELINE_CAP then ids = string.match(ids, '^%S+ (.*)$') end
  end
  redis.call('HSET', key, 'log_ids', ids)
  return entry
end
