--@include lib/read-hash.lua
--@include lib/push-pending.lua
--@include lib/log-event.lua
-- Moves delayed jobs whose time has come (retries waiting out their backoff, jobs enqueued with
-- a delay) onto pending, in due order, at most `limit` of them. An id whose hash is gone or no
-- longer says delayed (it was cancelled) is dropped. Looks at the earliest entry first, so a
-- call with nothing due costs one read. Returns the count promoted and the due time of the next
-- delayed job (ms), or -1 when none is left. `prefix`: the queue's key prefix (see admission.lua).
-- Each promotion is logged as 'promoted' (`log`: see lib/log-event.lua, nil when off).
local function promote_due(delayed, pending, job_prefix, prefix, limit, now, log)
  local head = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if not head[2] then return 0, -1 end
  if tonumber(head[2]) > now then return 0, tonumber(head[2]) end
  local due = redis.call('ZRANGE', delayed, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit)
  local promoted = 0
  redis.call('ZREM', delayed, unpack(due))
  for _, id in ipairs(due) do
    local key = job_prefix .. id
    local f = read_hash(key, 'status', 'priority', 'group')
    if f and f[1] == 'delayed' then
      redis.call('HSET', key, 'status', 'pending')
      push_pending(prefix, pending, id, f[2], false, f[3])
      promoted = promoted + 1
      log_event(log, id, 'promoted', nil, '', '')
    end
  end
  head = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  return promoted, head[2] and tonumber(head[2]) or -1
end
