--@include lib/now.lua
-- The worker registry: every worker's heartbeat (scripts/heartbeat.lua) keeps two keys, built
-- from the queue's key prefix (keys.ts's `prefix`, passed in ARGV) with keys.ts's WORKER_KEY_SUFFIXES:
--   <prefix>workers      sorted set: worker id scored by the time (ms, Redis clock) until which it
--                        counts as alive (its last heartbeat plus its TTL); below now it is dead
--   <prefix>worker:<id>  hash: id, host, pid, version, kinds (JSON array), concurrency, running
--                        (JSON array of job ids, capped), running_count, started_at_ms,
--                        last_seen_ms; it expires at the same deadline
-- A worker killed without closing drops out once its deadline passes; heartbeats trim it away.

-- Members the registry holds at most: a heartbeat past it evicts the workers nearest to expiry.
local WORKERS_MAX = 1000 --@export

local function workers_set(prefix)
  return prefix .. 'workers'
end

local function worker_hash(prefix, id)
  return prefix .. 'worker:' .. id
end

-- The ids of the workers alive at `now` (ms), with their deadlines: { id, deadline, ... }.
local function live_worker_entries(prefix, now)
  return redis.call('ZRANGE', workers_set(prefix), int_text(now), '+inf', 'BYSCORE', 'WITHSCORES')
end

-- Whether the `kinds` field of a worker's hash (a JSON array of kind names) holds `kind`.
local function worker_handles(kinds_json, kind)
  if not kinds_json then return false end
  local ok, kinds = pcall(cjson.decode, kinds_json)
  if not ok or type(kinds) ~= 'table' then return false end
  for _, name in ipairs(kinds) do
    if name == kind then return true end
  end
  return false
end

-- How many workers alive at `now` (ms) handle kind `kind`.
local function live_workers_for_kind(prefix, kind, now)
  local entries = live_worker_entries(prefix, now)
  local count = 0
  for i = 1, #entries, 2 do
    if worker_handles(redis.call('HGET', worker_hash(prefix, entries[i]), 'kinds'), kind) then count = count + 1 end
  end
  return count
end
