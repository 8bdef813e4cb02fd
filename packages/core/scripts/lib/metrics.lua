--@include lib/now.lua
--@lazy: loaded by the scripts that count for the queue's metrics history (the metricsHistory option).
-- The metrics history: per kind, one string of fixed size, built from the queue's key prefix
-- (keys.ts's METRICS_KEY_SUFFIXES):
--   <prefix>metrics:<kind>  string: two rings of slots, then a u32 trailer (the layout's version)
--   <prefix>metrics-kinds   sorted set: kind scored by its last write (ms, Redis clock)
-- The minute ring holds METRICS_MINUTE_SLOTS slots of a minute, the hour ring METRICS_HOUR_SLOTS
-- slots of an hour. Step s (ms // step length) lives in slot s % slots. A slot is
-- METRICS_SLOT_FIELDS + 1 big-endian u32: the step it holds (its stamp), then enqueued,
-- completed, failed, retried, and METRICS_RUN_BUCKETS run-time buckets (see
-- src/history-buckets.ts). A slot whose stamp is not the step asked for reads as zero, and the
-- first write of a new step overwrites it: the string never grows past its size. Writing the
-- trailer first makes the first write allocate the whole string at once.

local METRICS_MINUTE_MS = 60000 --@export
local METRICS_MINUTE_SLOTS = 1440 --@export
local METRICS_HOUR_MS = 3600000 --@export
local METRICS_HOUR_SLOTS = 336 --@export
local METRICS_SLOT_FIELDS = 30 --@export
local METRICS_RUN_BUCKETS = 26 --@export
local METRICS_SLOT_BYTES = 124 --@export
local METRICS_LAYOUT = 1 --@export
-- Kinds a queue keeps history for at most: past it, the kind written longest ago is dropped.
local METRICS_KINDS_MAX = 256 --@export
-- How long a kind's history lives after its last write (ms): the hour ring's span.
local METRICS_RETAIN_MS = 1209600000 --@export

local function metrics_key(prefix, kind)
  return prefix .. 'metrics:' .. kind
end

local function metrics_kinds(prefix)
  return prefix .. 'metrics-kinds'
end

-- The bit offset of field `field` (0: the stamp) of the slot of step `step` in ring `ring`
-- (0: minutes, 1: hours).
local function metrics_bit(ring, step, field)
  local base, slots = 0, METRICS_MINUTE_SLOTS
  if ring == 1 then base, slots = METRICS_MINUTE_SLOTS * METRICS_SLOT_BYTES, METRICS_HOUR_SLOTS end
  return int_text((base + (step % slots) * METRICS_SLOT_BYTES + field * 4) * 8)
end

-- Adds `adds` ({ field, amount, ... }, fields 1..METRICS_SLOT_FIELDS) to kind `kind`'s current
-- minute and hour at `now` (ms): one BITFIELD while both slots hold the current steps; a slot
-- of an older step is first overwritten with the step and zeros.
local function metrics_add(prefix, kind, now, adds)
  local key = metrics_key(prefix, kind)
  local steps = { math.floor(now / METRICS_MINUTE_MS), math.floor(now / METRICS_HOUR_MS) }
  local trailer = int_text((METRICS_MINUTE_SLOTS + METRICS_HOUR_SLOTS) * METRICS_SLOT_BYTES * 8)
  local ops = { 'SET', 'u32', trailer, METRICS_LAYOUT, 'GET', 'u32', metrics_bit(0, steps[1], 0), 'GET', 'u32', metrics_bit(1, steps[2], 0), 'OVERFLOW', 'SAT' }
  for ring = 0, 1 do
    for i = 1, #adds, 2 do
      local n = #ops
      ops[n + 1], ops[n + 2], ops[n + 3], ops[n + 4] = 'INCRBY', 'u32', metrics_bit(ring, steps[ring + 1], adds[i]), adds[i + 1]
    end
  end
  local got = redis.call('BITFIELD', key, unpack(ops))
  local reset = nil
  for ring = 0, 1 do
    local step = steps[ring + 1]
    if got[ring + 2] ~= step then
      -- A slot of another step: its counts were not this step's, so it starts again from the adds.
      local amounts = {}
      for i = 1, #adds, 2 do amounts[adds[i]] = (amounts[adds[i]] or 0) + adds[i + 1] end
      reset = reset or {}
      local n = #reset
      reset[n + 1], reset[n + 2], reset[n + 3], reset[n + 4] = 'SET', 'u32', metrics_bit(ring, step, 0), int_text(step)
      for field = 1, METRICS_SLOT_FIELDS do
        n = #reset
        reset[n + 1], reset[n + 2], reset[n + 3], reset[n + 4] = 'SET', 'u32', metrics_bit(ring, step, field), int_text(math.min(amounts[field] or 0, 4294967295))
      end
    end
  end
  if not reset then return end
  -- At most once a minute per kind: the new step, and the index of kinds and the expiries with it.
  redis.call('BITFIELD', key, unpack(reset))
  redis.call('PEXPIRE', key, METRICS_RETAIN_MS)
  local kinds = metrics_kinds(prefix)
  redis.call('ZADD', kinds, int_text(now), kind)
  redis.call('ZREMRANGEBYSCORE', kinds, '-inf', '(' .. int_text(now - METRICS_RETAIN_MS))
  local excess = redis.call('ZCARD', kinds) - METRICS_KINDS_MAX
  if excess > 0 then
    for _, old in ipairs(redis.call('ZRANGE', kinds, 0, excess - 1)) do
      redis.call('ZREM', kinds, old)
      redis.call('DEL', metrics_key(prefix, old))
    end
  end
  redis.call('PEXPIRE', kinds, METRICS_RETAIN_MS)
end
