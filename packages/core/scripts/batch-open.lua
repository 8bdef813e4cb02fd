#!lua
--[[
  batch-open: opens a batch (see lib/batch.lua): its hash with its counts at 0, not sealed, and
  its callbacks; it joins the batches index (scored +inf until it finishes), from which the
  batches whose hash expired are dropped. Opening a batch that is open already with the same
  callbacks (a resend after a lost reply, another process of the same producer) changes nothing.

  KEYS[1]   batch: the batch's hash
  KEYS[2]   batches: the batches index (see lib/batch.lua)
  ARGV[1]   id: the batch's id
  ARGV[2..] callbacks: per callback, 4 values: its name (success, complete or death), kind,
            payload JSON and its kind's defaults ('maxAttempts,visibilityMs,priority', 0: none)
  Returns:  BATCH_OPENED, or BATCH_TAKEN when a batch of that id exists with other callbacks
            or is sealed (nothing changed)
  Reply:    number
]]
--@include lib/now.lua

local BATCH_OPENED = 1 --@export
local BATCH_TAKEN = 0 --@export

local fields = {}
for i = 2, #ARGV, 4 do
  fields[#fields + 1] = 'cb_kind:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
  fields[#fields + 1] = 'cb_payload:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 2]
  fields[#fields + 1] = 'cb_options:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 3]
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  local b = redis.call('HGETALL', KEYS[1])
  local had, count = {}, 0
  for i = 1, #b, 2 do
    if string.find(b[i], 'cb_', 1, true) == 1 then had[b[i]] = b[i + 1]; count = count + 1 end
  end
  if redis.call('HGET', KEYS[1], 'sealed') ~= '0' or count * 2 ~= #fields then return BATCH_TAKEN end
  for i = 1, #fields, 2 do
    if had[fields[i]] ~= fields[i + 1] then return BATCH_TAKEN end
  end
  return BATCH_OPENED
end
local now = now_ms()
redis.call('HSET', KEYS[1], 'total', '0', 'succeeded', '0', 'failed', '0', 'cancelled', '0', 'sealed', '0',
  'created_at_ms', int_text(now))
if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int_text(now))
redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
return BATCH_OPENED
