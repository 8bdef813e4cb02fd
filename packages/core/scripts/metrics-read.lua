#!lua flags=no-writes
--[[
  metrics-read: the queue's metrics history (see lib/metrics.lua) for the last `steps` steps of
  one ring, ending with the current one (Redis time): the kinds that have history, and per step
  whose slot holds it, that step's fields summed over the kinds asked for. Steps without data
  are left out (they read as zero).

  KEYS[1]  kinds: the sorted set of kinds with history (see lib/metrics.lua)
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the kinds' strings (see lib/metrics.lua)
  ARGV[2]  ring: 0 for the minute ring, 1 for the hour ring
  ARGV[3]  steps: how many steps, ending with the current one (at most the ring's slots)
  ARGV[4]  kind: the kind to read, '' for every kind summed
  Returns: { now ms, { kind names }, { step, then METRICS_SLOT_FIELDS numbers, ... for each
           step with data, oldest first } }
  Reply:   [nowMs: number, kinds: Array<string>, rows: Array<number>]
]]
--@include lib/now.lua
--@include lib/metrics.lua

load_metrics()
local now = now_ms()
local ring = tonumber(ARGV[2])
local step_ms, slots, base = METRICS_MINUTE_MS, METRICS_MINUTE_SLOTS, 0
if ring == 1 then step_ms, slots, base = METRICS_HOUR_MS, METRICS_HOUR_SLOTS, METRICS_MINUTE_SLOTS * METRICS_SLOT_BYTES end
local steps = math.min(tonumber(ARGV[3]), slots)
local last = math.floor(now / step_ms)
local first = last - steps + 1
local kinds = redis.call('ZRANGE', KEYS[1], 0, -1)
local wanted = kinds
if ARGV[4] ~= '' then wanted = { ARGV[4] } end
local layout = '>' .. string.rep('I4', METRICS_SLOT_FIELDS)
local sums = {}
for _, kind in ipairs(wanted) do
  local data = redis.call('GETRANGE', metrics_key(ARGV[1], kind), base, base + slots * METRICS_SLOT_BYTES - 1)
  if #data == slots * METRICS_SLOT_BYTES then
    for step = first, last do
      local at = (step % slots) * METRICS_SLOT_BYTES + 1
      if struct.unpack('>I4', data, at) == step then
        local fields = { struct.unpack(layout, data, at + 4) }
        local sum = sums[step]
        if not sum then
          sum = {}
          for f = 1, METRICS_SLOT_FIELDS do sum[f] = 0 end
          sums[step] = sum
        end
        for f = 1, METRICS_SLOT_FIELDS do sum[f] = sum[f] + fields[f] end
      end
    end
  end
end
local rows = {}
for step = first, last do
  local sum = sums[step]
  if sum then
    rows[#rows + 1] = step
    for f = 1, METRICS_SLOT_FIELDS do rows[#rows + 1] = sum[f] end
  end
end
return { now, kinds, rows }
