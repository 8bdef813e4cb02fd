#!lua flags=no-writes
--[[
  metrics-read: the queue's metrics history (see lib/metrics.lua) for the last `steps` steps of
  one ring, ending with the current one (Redis time): the kinds that have history, and for each
  kind asked for, the bytes of those steps' slots, oldest first, as stored (each slot starts
  with the step it holds: the reader keeps only the slots whose stamp is their step). Reads
  bytes and decodes nothing, so its cost is a copy of at most one ring per kind.

  KEYS[1]  kinds: the sorted set of kinds with history (see lib/metrics.lua)
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the kinds' strings (see lib/metrics.lua)
  ARGV[2]  ring: 0 for the minute ring, 1 for the hour ring
  ARGV[3]  steps: how many steps, ending with the current one (at most the ring's slots)
  ARGV[4]  kind: the kind to read, '' for every kind
  Returns: { now ms, the first step read, { kind names }, { per kind asked for (the one, or
           each of the names in order): its slots' bytes, '' when it has none } }
  Reply:   [nowMs: number, first: number, kinds: Array<Buffer>, chunks: Array<Buffer>]
]]
--@include lib/now.lua
--@include lib/metrics.lua

load_metrics()
local now = now_ms()
local ring = tonumber(ARGV[2])
local step_ms, slots, base = METRICS_MINUTE_MS, METRICS_MINUTE_SLOTS, 0
if ring == 1 then step_ms, slots, base = METRICS_HOUR_MS, METRICS_HOUR_SLOTS, METRICS_MINUTE_SLOTS * METRICS_SLOT_BYTES end
local steps = math.min(tonumber(ARGV[3]), slots)
local first = math.floor(now / step_ms) - steps + 1
local kinds = redis.call('ZRANGE', KEYS[1], 0, -1)
local wanted = kinds
if ARGV[4] ~= '' then wanted = { ARGV[4] } end
-- The slots of steps first..first+steps-1 run from slot `from` to the end of the ring, then
-- (when they wrap) on from its start.
local from = first % slots
local head = math.min(steps, slots - from)
local chunks = {}
for i, kind in ipairs(wanted) do
  local key = metrics_key(ARGV[1], kind)
  local at = base + from * METRICS_SLOT_BYTES
  local bytes = redis.call('GETRANGE', key, at, at + head * METRICS_SLOT_BYTES - 1)
  if head < steps and #bytes > 0 then
    bytes = bytes .. redis.call('GETRANGE', key, base, base + (steps - head) * METRICS_SLOT_BYTES - 1)
  end
  chunks[i] = bytes
end
return { now, first, kinds, chunks }
