#!lua flags=allow-oom
--[[
  batch-seal: seals a batch: no job may join it any more, and once every job it has ended it
  finishes (see lib/batch.lua), at once when they all ended before the seal. Sealing a sealed
  batch again (a resend after a lost reply) changes nothing and answers the same.

  KEYS[1]  batch: the batch's hash
  KEYS[2]  pending: pending list, where a callback's job goes
  KEYS[3]  stats: stats hash
  KEYS[4]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  id: the batch's id
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:")
  ARGV[3]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[4]  logMaxLen: the event log's cap ('0' = the log is off)
  Returns: BATCH_SEALED, or BATCH_MISSING when there is no such batch
  Reply:   number
]]
--@include lib/now.lua
--@include lib/log-event.lua
--@include lib/batch.lua

local BATCH_SEALED = 1 --@export
local BATCH_MISSING = 0 --@export

if redis.call('EXISTS', KEYS[1]) == 0 then return BATCH_MISSING end
local now = now_ms()
if redis.call('HGET', KEYS[1], 'sealed') ~= '1' then
  redis.call('HSET', KEYS[1], 'sealed', '1', 'sealed_at_ms', int_text(now))
end
load_batch()
batch_check({ prefix = ARGV[2], job_prefix = ARGV[3], pending = KEYS[2], stats = KEYS[3], now = now,
  log = open_log(KEYS[4], ARGV[4], ARGV[3]) }, KEYS[1], ARGV[1])
return BATCH_SEALED
