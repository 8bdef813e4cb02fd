-- Writes a new job's hash as the enqueue script does: the recipe's fields, its kind, and the
-- max attempts and visibility when they are not the queue's defaults ('0' meaning: default), and
-- the W3C traceparent of the enqueue when one was given (nil: none, no field).
local function write_job_hash(job_key, id, payload, kind, status, now_text, max_attempts, visibility_ms, traceparent)
  redis.call('HSET', job_key, 'id', id, 'payload', payload, 'status', status, 'attempts', '0',
    'enqueued_at_ms', now_text, 'claim_token', '', 'kind', kind)
  if max_attempts ~= '0' then redis.call('HSET', job_key, 'max_attempts', max_attempts) end
  if visibility_ms ~= '0' then redis.call('HSET', job_key, 'visibility_ms', visibility_ms) end
  if traceparent then redis.call('HSET', job_key, 'traceparent', traceparent) end
end
