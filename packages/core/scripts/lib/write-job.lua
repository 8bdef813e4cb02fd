--@include lib/now.lua
-- Writes a new job's hash, for every way a job is made (enqueue, enqueue-flow, a schedule's
-- tick): the recipe's fields, its kind, and the max attempts and visibility when they are not
-- the queue's defaults ('0' meaning: default), the W3C traceparent of the enqueue when one was
-- given (nil: none, no field), the priority when not '0', the expiry (ms, 0: none) and the group
-- (nil or '': none). Where the job then waits is push_pending's (lib/push-pending.lua) choice.
local function write_job_hash(job_key, id, payload, kind, status, now_text, max_attempts, visibility_ms, traceparent, priority, expiry, group)
  redis.call('HSET', job_key, 'id', id, 'payload', payload, 'status', status, 'attempts', '0',
    'enqueued_at_ms', now_text, 'claim_token', '', 'kind', kind)
  if max_attempts ~= '0' then redis.call('HSET', job_key, 'max_attempts', max_attempts) end
  if visibility_ms ~= '0' then redis.call('HSET', job_key, 'visibility_ms', visibility_ms) end
  if traceparent then redis.call('HSET', job_key, 'traceparent', traceparent) end
  if priority ~= '0' then redis.call('HSET', job_key, 'priority', priority) end
  if expiry > 0 then redis.call('HSET', job_key, 'expires_at_ms', int_text(expiry)) end
  if group and group ~= '' then redis.call('HSET', job_key, 'group', group) end
end

-- Parses a job's packed options ('' or "delay ms,run-at ms,max attempts,visibility ms,
-- idempotency ms,priority,ttl ms,expires-at ms", then an optional ",<traceparent>" and an
-- optional "|<group>"; see enqueue.lua): delay, run-at, max attempts and visibility as text, the
-- idempotency retention as a number, the priority as text, the expiry (ms on `now`'s clock,
-- 0 = none), the traceparent (nil: none) and the group (nil: none). `script` names the caller
-- in the error a malformed text raises.
local function job_options(text, now, script)
  if text == '' then return '0', '0', '0', '0', 0, '0', 0, nil, nil end
  local numbers, group = string.match(text, '^([^|]*)|(.+)$')
  local delay, run_at, max_attempts, visibility, idem, priority, ttl, expires_at, rest =
    string.match(numbers or text, '^(%d+),(%d+),(%d+),(%d+),(%d+),(-?%d+),(%d+),(%d+)(.*)$')
  local traceparent = nil
  if rest and rest ~= '' then traceparent = string.match(rest, '^,([%x%-]+)$') end
  if not expires_at or (rest ~= '' and not traceparent) then error(script .. ': malformed job options "' .. text .. '"') end
  local expiry = tonumber(expires_at)
  if ttl ~= '0' then expiry = now + tonumber(ttl) end
  return delay, run_at, max_attempts, visibility, tonumber(idem), priority, expiry, traceparent, group
end
