--@include lib/read-hash.lua
--@include lib/log-event.lua
--@lazy: loaded where an enqueue's options or a job's hash name a dedupe key.
-- Dedupe keys (the enqueue options `dedupe` and `unique`): `<prefix>dedupe:<kind>:<key>`, a string
-- holding the id of the job that owns it (keys.ts's DEDUPE_KEY_SUFFIXES). The owner's hash
-- names it in `dedupe_key` and says in `dedupe_states` in which states it keeps it: letters of
-- dedupe_letter, then '+' when the key also holds for a period (a PX of its own).
-- An enqueue meeting a held key is absorbed (nothing written; the owner's id answers) while the
-- owner's status is one of those states. The key lives and dies with its owner: each script
-- that ends a job (completes, fails, cancels, expires, removes it, or trims it off a history)
-- releases the key in the same call, unless the ended state is one that keeps it; then it
-- lives as long as the hash (its TTL, or its place in history), or its own period.
-- A key is never orphaned: an enqueue reads the owner's status itself, so a key whose owner
-- ended another way (a recipe client, a hash expired by hand) counts as free.

-- How long (ms) an absorbed enqueue remembers its owner, for a resend after a lost reply.
local DEDUPE_REPLAY_MS = 600000 --@export

-- The key that remembers, for DEDUPE_REPLAY_MS, the job an enqueue of job `id` was absorbed into.
local function dedupe_marker(prefix, id)
  return prefix .. 'deduped:' .. id
end

-- The dedupe key named `name` (`<kind>:<key>`) in the queue of key prefix `prefix`.
local function dedupe_key_of(prefix, name)
  return prefix .. 'dedupe:' .. name
end

-- A job's status as a letter of the user's states (dedupe-options.ts's DEDUPE_STATE_LETTERS:
-- waiting, a flow's parent waiting for its children too, delayed, running, completed, failed,
-- cancelled); nil for a status that holds no key.
local function dedupe_letter(status)
  if status == 'pending' or status == 'waiting-children' then return 'w'
  elseif status == 'delayed' then return 'd'
  elseif status == 'processing' then return 'r'
  elseif status == 'completed' then return 'c'
  elseif status == 'failed' then return 'f'
  elseif status == 'cancelled' then return 'x'
  end
  return nil
end

-- The owner that absorbs an enqueue with dedupe key `key` and states `states` (letters, '+' for
-- a period), and its status; nil when the key is free. With a period, an owner whose hash is gone
-- ended and was not kept: it counts as completed. `unstarted`: only an owner that never ran
-- absorbs (a debounce: a job delayed for its retry has run).
local function dedupe_owner(key, states, job_prefix, unstarted)
  local owner = redis.call('GET', key)
  if not owner then return nil end
  local f = read_hash(job_prefix .. owner, 'status', 'attempts')
  if unstarted and f and (tonumber(f[2]) or 0) > 0 then return nil end
  local status = f and f[1]
  local letter = status and dedupe_letter(status)
  if not status and string.find(states, '+', 1, true) then letter = 'c' end
  if letter and string.find(states, letter, 1, true) then return owner, status end
  return nil
end

-- Makes job `id` (just written, hash at `job_key`) the owner of `key`: for `period_ms` (0: until
-- its end), in `states`. A debounced job records when its first enqueue was (`now`).
local function dedupe_take(key, states, period_ms, debounced, job_key, id, now)
  if period_ms > 0 then
    redis.call('SET', key, id, 'PX', period_ms)
  else
    redis.call('SET', key, id)
  end
  -- `trail` tells the scripts that end the job to look for its key (lib/job-trail.lua).
  redis.call('HSET', job_key, 'dedupe_key', key, 'dedupe_states', states, 'trail', '1')
  if debounced then redis.call('HSET', job_key, 'dedupe_first_ms', int_text(now)) end
end

-- Absorbs job `dup` into `owner` (status `status`): with `replace`, a waiting or delayed owner
-- takes `payload`; a debounce (`quiet_ms` > 0) pushes a delayed owner's due time to `now` +
-- quiet_ms, and no later than its first enqueue + `max_wait_ms` (0: no bound), never earlier
-- than it was. Its marker (dedupe_marker, from the queue's `prefix`) remembers whom `dup` went
-- to, so that a resent enqueue answers the same (see enqueue.lua). Logged on the owner as
-- 'deduplicated'.
local function dedupe_absorb(prefix, job_prefix, owner, status, dup, payload, replace, quiet_ms, max_wait_ms, delayed, now, log)
  local owner_key = job_prefix .. owner
  if replace and (status == 'pending' or status == 'delayed') then
    redis.call('HSET', owner_key, 'payload', payload)
  end
  if quiet_ms > 0 and status == 'delayed' then
    local due = now + quiet_ms
    if max_wait_ms > 0 then
      local first = tonumber(redis.call('HGET', owner_key, 'dedupe_first_ms')) or now
      due = math.min(due, first + max_wait_ms)
    end
    local was = tonumber(redis.call('ZSCORE', delayed, owner))
    if was and due > was then
      redis.call('ZADD', delayed, 'XX', int_text(due), owner)
      redis.call('HSET', owner_key, 'run_at_ms', int_text(due))
    end
  end
  redis.call('SET', dedupe_marker(prefix, dup), owner, 'PX', DEDUPE_REPLAY_MS)
  log_event(log, owner, 'deduplicated', nil, '', '', { 'duplicate', dup })
end

-- Job `id` (hash at `job_key`, still there) ends in `state` (a letter of dedupe_letter; '' when
-- it is removed): releases its dedupe key `name` (the hash's `dedupe_key`) when the key still
-- names it, unless `state` is one the key holds in. Then the key holds for its own period, or as
-- long as the hash: `ttl` seconds (0: no TTL), or not at all when `kept` is false (the hash goes
-- now: no history kept, or trimmed off it). The queue's `prefix` checks that the name is its own.
local function dedupe_end(prefix, job_key, id, name, state, ttl, kept)
  if string.find(name, prefix .. 'dedupe:', 1, true) ~= 1 or redis.call('GET', name) ~= id then return end
  local states = redis.call('HGET', job_key, 'dedupe_states') or ''
  if state ~= '' and string.find(states, state, 1, true) then
    if string.find(states, '+', 1, true) then return end
    if kept then
      if tonumber(ttl) > 0 then redis.call('EXPIRE', name, ttl) end
      return
    end
  end
  redis.call('DEL', name)
end

-- Job `id` (hash at `key`, in status `status`) is trimmed off its history list, where its trail
-- field said it may have a dedupe key: it gives the key up, but for a period of its own.
local function dedupe_trimmed(prefix, key, id, status)
  local name = redis.call('HGET', key, 'dedupe_key')
  if name then dedupe_end(prefix, key, id, name, dedupe_letter(status), 0, false) end
end
