#!lua flags=allow-oom
--[[
  tidy: drops from the far (oldest) end of a history list the ids whose hash has expired, at
  most ARGV[2] per call, stopping at the first id that still has its hash. Hashes expire in the
  order the ids were pushed, so the expired ones gather at the tail. A hash that expires is
  gone with no script running, so a lost job is counted here, when its id is dropped.

  KEYS[1]  list: the history list (completed or failed)
  KEYS[2]  stats: stats hash
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  batch: most ids to drop in this call
  ARGV[3]  droppedField: the stats field counting the ids dropped ('' = count nothing)
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
if dropped > 0 and ARGV[3] ~= '' then redis.call('HINCRBY', KEYS[2], ARGV[3], dropped) end
return dropped
