-- The server's clock in milliseconds: every lease and delay is measured on this one clock,
-- so workers on hosts with skewed clocks still agree on when a lease expires.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
