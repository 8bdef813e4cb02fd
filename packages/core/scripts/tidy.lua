#!lua flags=allow-oom
--[[
  tidy: drops from the far (oldest) end of a history list the ids whose hash has expired, at
  most ARGV[2] per call, stopping at the first id that still has its hash. Hashes expire in the
  order the ids were pushed, so the expired ones gather at the tail.

  KEYS[1]  list: the history list (completed or failed)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  batch: most ids to drop in this call
  Returns: how many ids were dropped
  Reply:   number
]]
--@include lib/job-status.lua

local dropped = 0
while dropped < tonumber(ARGV[2]) do
  local id = redis.call('LINDEX', KEYS[1], -1)
  if not id or job_status(ARGV[1] .. id) then break end
  redis.call('RPOP', KEYS[1])
  dropped = dropped + 1
end
return dropped
