-- The server's clock in milliseconds: every lease and delay is measured on this one clock,
-- so workers on hosts with skewed clocks still agree on when a lease expires.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A whole number as Redis would print it. Hand Redis strings, not Lua numbers: Redis 7.0 prints
-- every number argument of redis.call with "%.17g", a slow path through glibc's floating-point
-- printing; "%d" is an integer conversion. Timestamps in ms are exact in a double.
local function int_text(n)
  return string.format('%d', n)
end
