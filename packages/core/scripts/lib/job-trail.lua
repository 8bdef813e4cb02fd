--@include lib/now.lua
--@lazy: loaded where a job's hash says it has a trail, and by the scripts that end an attempt or log.
-- A job's trail: two keys beside its hash `key`, named by keys.ts's JOB_TRAIL_SUFFIXES:
--   <key>#attempts  list: one JSON object per ended attempt, oldest first ({ attempt, workerId?,
--                   claimedAtMs, endedAtMs, outcome, error? }), capped (`attemptHistory.keep`);
--                   the hash's `attempts_trimmed` counts the ones cut
--   <key>#logs      list: the handler's log lines, oldest first, capped (`jobLogs.lines`); the
--                   hash's `logs_trimmed` counts the ones cut
-- The hash's field `trail` is '1' once either may exist or the hash holds `last_error_json`
-- (a failure sets it even with no attempt kept), or the job has a dedupe key or a batch (set at
-- enqueue: lib/dedupe.lua, lib/batch.lua), so the scripts that expire, keep or delete a hash, or
-- end a job, look further only then: a plain job that never failed nor logged costs nothing here.
-- The trail lives and dies with the hash: each script that finishes a job (sets the hash's TTL,
-- or keeps it without one) or deletes the hash does the same to the trail, in the same call.
-- While the job is not finished its trail holds for TRAIL_IDLE_SECONDS past its last write (and
-- past a retry's delay): a hash a recipe client expires or deletes, which knows nothing of the
-- trail, leaves none behind for longer than that.
local TRAIL_IDLE_SECONDS = 2592000 --@export

local function trail_attempts(key) return key .. '#attempts' end
local function trail_logs(key) return key .. '#logs' end

-- The job is finished: the trail takes the hash's TTL (`ttl` seconds, number or text), or none
-- (`ttl` 0) when the hash keeps none.
local function trail_keep(key, ttl)
  if tonumber(ttl) > 0 then
    redis.call('EXPIRE', trail_attempts(key), ttl)
    redis.call('EXPIRE', trail_logs(key), ttl)
  else
    redis.call('PERSIST', trail_attempts(key))
    redis.call('PERSIST', trail_logs(key))
  end
end

-- The job runs or waits: its trail holds TRAIL_IDLE_SECONDS more, and `extra` seconds (a delay).
local function trail_hold(key, extra)
  local ttl = int_text(TRAIL_IDLE_SECONDS + math.ceil(extra or 0))
  redis.call('EXPIRE', trail_attempts(key), ttl)
  redis.call('EXPIRE', trail_logs(key), ttl)
end

-- Adds the trail's keys of `key` to `keys`, for a DEL with the hash.
local function trail_add_keys(keys, key)
  keys[#keys + 1] = trail_attempts(key)
  keys[#keys + 1] = trail_logs(key)
end

-- Records the end of the claimed attempt of the job at `key` (read before the script clears its
-- claim fields): `outcome`, the worker's id (`worker`, '' when none), the time `now`, and the
-- error in its JSON form (`error_json`, '' when none). Keeps the last `keep` (0: records nothing).
-- `hold`: seconds the job may wait before its next attempt (see trail_hold); a script that
-- finishes the job sets the trail's lifetime after this (trail_keep).
local function record_attempt(key, keep, worker, now, outcome, error_json, hold)
  if keep <= 0 then return end
  local f = redis.call('HMGET', key, 'attempts', 'claimed_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'claim_token')
  local claimed = tonumber(f[2])
  if f[3] and f[4] and f[4] == f[5] then claimed = tonumber(f[3]) end
  local record = '{"attempt":' .. int_text(tonumber(f[1]) or 0) .. ',"claimedAtMs":' ..
    ((claimed and claimed > 0) and int_text(claimed) or 'null') .. ',"endedAtMs":' .. int_text(now) ..
    ',"outcome":"' .. outcome .. '"'
  if worker and worker ~= '' then record = record .. ',"workerId":' .. cjson.encode(worker) end
  if error_json and error_json ~= '' then record = record .. ',"error":' .. error_json end
  local list = trail_attempts(key)
  local length = redis.call('RPUSH', list, record .. '}')
  if length > keep then
    redis.call('LTRIM', list, length - keep, -1)
    redis.call('HINCRBY', key, 'attempts_trimmed', length - keep)
  end
  redis.call('HSET', key, 'trail', '1')
  trail_hold(key, hold)
end
