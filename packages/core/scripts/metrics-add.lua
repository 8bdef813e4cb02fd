#!lua
--[[
  metrics-add: adds a worker's counts of the last interval to the queue's metrics history (see
  lib/metrics.lua), in the current minute and hour (Redis time). Counts, not events: a call
  sent twice counts twice.

  KEYS[1]  kinds: the sorted set of kinds with history (see lib/metrics.lua)
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the kinds' strings (see lib/metrics.lua)
  ARGV[2..] counts: per kind: its name, the number n of pairs, then n pairs of a field (1 to
           METRICS_SLOT_FIELDS: see lib/metrics.lua; others are skipped) and the amount to add to it
  Returns: now ms
  Reply:   number
]]
--@include lib/now.lua
--@include lib/metrics.lua

load_metrics()
local now = now_ms()
local i = 2
while i <= #ARGV do
  local kind, n = ARGV[i], tonumber(ARGV[i + 1])
  local adds = {}
  for j = 0, n - 1 do
    -- A field outside the slot would write into the stamp or the next slot: it is skipped.
    local field = tonumber(ARGV[i + 2 + j * 2])
    if field and field >= 1 and field <= METRICS_SLOT_FIELDS then
      adds[#adds + 1] = field
      adds[#adds + 1] = ARGV[i + 3 + j * 2]
    end
  end
  if #adds > 0 then metrics_add(ARGV[1], kind, now, adds) end
  i = i + 2 + n * 2
end
return now
