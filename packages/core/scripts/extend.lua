#!lua flags=allow-oom
--[[
  extend: renews the leases of one or more claimed jobs in one call (a worker renews all its
  jobs per tick, not one call per job). Like SQS's ChangeMessageVisibility, the new deadline is
  now + the given time, not the old deadline plus it. Fenced: a job whose token no longer
  matches (it was reclaimed or finished) is not renewed, and the caller learns it.

  KEYS[1]   leases: lease index sorted set
  KEYS[2..] jobs: the job hash of each job, in the order of the ARGV pairs
  ARGV[1]   leaseMs: lease length in ms, counted from now
  ARGV[2..] claims: per job, 2 values: id, claim token
  Returns:  per job the new deadline in ms, or NOT_OWNER (0) if the caller no longer owns the job
  Reply:    number[]
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/holds-claim.lua

local now = now_ms()
local deadline = now + tonumber(ARGV[1])
local out = {}
for j = 0, (#ARGV - 1) / 2 - 1 do
  local id, token = ARGV[2 + j * 2], ARGV[3 + j * 2]
  local key = KEYS[2 + j]
  if holds_claim(key, token) then
    redis.call('ZADD', KEYS[1], deadline, id)
    redis.call('HSET', key, 'lease_expires_at_ms', deadline)
    out[#out + 1] = deadline
  else
    out[#out + 1] = NOT_OWNER
  end
end
return out
