--@include lib/now.lua
-- Writes a new job's hash, for every way a job is made (enqueue, enqueue-flow, a schedule's
-- tick): the recipe's fields, its kind, and the max attempts and visibility when they are not
-- the queue's defaults ('0' meaning: default), the W3C traceparent of the enqueue when one was
-- given (nil: none, no field), the priority when not '0', the expiry (ms, 0: none), the group
-- (nil or '': none) and the cost against rate limits (nil or 1: none, see lib/limits.lua). Where
-- the job then waits is push_pending's (lib/push-pending.lua) choice.
local function write_job_hash(job_key, id, payload, kind, status, now_text, max_attempts, visibility_ms, traceparent, priority, expiry, group, cost)
  redis.call('HSET', job_key, 'id', id, 'payload', payload, 'status', status, 'attempts', '0',
    'enqueued_at_ms', now_text, 'claim_token', '', 'kind', kind)
  if max_attempts ~= '0' then redis.call('HSET', job_key, 'max_attempts', max_attempts) end
  if visibility_ms ~= '0' then redis.call('HSET', job_key, 'visibility_ms', visibility_ms) end
  if traceparent then redis.call('HSET', job_key, 'traceparent', traceparent) end
  if priority ~= '0' then redis.call('HSET', job_key, 'priority', priority) end
  if expiry > 0 then redis.call('HSET', job_key, 'expires_at_ms', int_text(expiry)) end
  if group and group ~= '' then redis.call('HSET', job_key, 'group', group) end
  if cost and cost > 1 then redis.call('HSET', job_key, 'cost', int_text(cost)) end
end

-- The options a job may carry into the enqueue scripts, by name, and what each holds: 'n' a
-- whole number from 0, 'i' any whole number, 's' a string. Names as commands/enqueue.ts's
-- ScriptJobOptions writes them; any other name is refused.
local JOB_OPTION_TYPES = {
  delayMs = 'n', runAtMs = 'n', maxAttempts = 'n', visibilityMs = 'n', idempotencyTtlMs = 'n',
  priority = 'i', ttlMs = 'n', expiresAtMs = 'n', traceparent = 's', group = 's',
  cost = 'n',
  dedupeStates = 's', dedupePeriodMs = 'n', debounceMs = 'n', debounceMaxWaitMs = 'n', dedupeReplace = 'n',
  batch = 's',
}

-- Reads a job's options: '' for none, else a JSON object of named fields (JOB_OPTION_TYPES; an
-- absent field has its default, see enqueue.lua). Returns delay, run-at, max attempts and
-- visibility as text ('0': none or default), the idempotency retention as a number, the
-- priority as text, the expiry (ms on `now`'s clock, 0 = none), the traceparent, the group
-- (nil: none), the cost (nil: 1), and the options themselves (nil for none: the rarer ones are
-- read from there, such as the dedupe fields of lib/dedupe.lua: dedupeStates says the job has a
-- dedupe key). `script` names the caller in the error a malformed text raises.
local function job_options(text, now, script)
  if text == '' then return '0', '0', '0', '0', 0, '0', 0, nil, nil end
  local ok, o = pcall(cjson.decode, text)
  local bad = not ok or type(o) ~= 'table'
  if not bad then
    for name, value in pairs(o) do
      local want = JOB_OPTION_TYPES[name]
      if want == 's' then
        bad = bad or type(value) ~= 'string' or value == ''
      else
        bad = bad or not want or type(value) ~= 'number' or value ~= math.floor(value) or (want == 'n' and value < 0)
      end
    end
  end
  if bad then error(script .. ': malformed job options "' .. text .. '"') end
  local expiry = o.expiresAtMs or 0
  if (o.ttlMs or 0) > 0 then expiry = now + o.ttlMs end
  return int_text(o.delayMs or 0), int_text(o.runAtMs or 0), int_text(o.maxAttempts or 0), int_text(o.visibilityMs or 0),
    o.idempotencyTtlMs or 0, int_text(o.priority or 0), expiry, o.traceparent, o.group, o.cost, o
end
