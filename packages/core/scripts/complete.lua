#!lua flags=allow-oom
--[[
  complete: completes one or more claimed jobs. Each completion is fenced: the token must be
  non-empty and equal the job's claim_token, the job must be in status processing, and its id
  must be in the processing list. Then the id leaves processing and the lease index, the hash
  records the result and clears claim_token (so a second complete, or a fail after complete,
  does nothing), the id goes onto the capped completed history, and the hash gets its TTL.

  KEYS[1]   processing list
  KEYS[2]   completed list
  KEYS[3]   lease index sorted set
  KEYS[4]   stats hash
  KEYS[5..] the job hash of each job, in the order of the ARGV triples
  ARGV[1]   job key prefix ("queue:{NAME}:job:"), for ids trimmed off the history
  ARGV[2]   completed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[3]   completed history cap (0 = keep no history)
  ARGV[4]   events channel ('' = publish nothing)
  ARGV[5..] per job, 3 values: id, claim token, result JSON
  Returns:  per job 1 if completed, 0 if the caller does not own the job (nothing changed)
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/history.lua

local job_prefix, ttl, cap, channel = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local now = now_ms()
local out = {}
local completed = 0
for j = 0, (#ARGV - 4) / 3 - 1 do
  local id, token, result = ARGV[5 + j * 3], ARGV[6 + j * 3], ARGV[7 + j * 3]
  local key = KEYS[5 + j]
  local owned = holds_claim(key, token) and remove_from_list(KEYS[1], id) == 1
  if owned then
    redis.call('ZREM', KEYS[3], id)
    redis.call('HSET', key, 'status', 'completed', 'completed_at_ms', now, 'result', result,
      'claim_token', '')
    redis.call('HDEL', key, 'lease_expires_at_ms', 'last_error', 'last_error_at_ms')
    push_history(KEYS[2], id, cap, job_prefix, 'completed')
    if ttl > 0 then redis.call('EXPIRE', key, ttl) end
    publish_event(channel, id, 'completed')
    completed = completed + 1
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
if completed > 0 then redis.call('HINCRBY', KEYS[4], 'completed_total', completed) end
return out
