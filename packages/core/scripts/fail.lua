#!lua flags=allow-oom
--[[
  fail: records a failed attempt of a claimed job, fenced like complete. The script, not the
  caller, decides between retry and dead letter, from the hash's attempts and max_attempts:
  a permanent failure, or attempts >= max_attempts, moves the job to the failed list with its
  reason; otherwise it is retried, after the given delay through the delayed set, or at once
  (onto pending, or its priority's list: a retried job keeps its priority).

  KEYS[1]  the job's hash
  KEYS[2]  processing list
  KEYS[3]  pending list
  KEYS[4]  delayed sorted set
  KEYS[5]  failed list
  KEYS[6]  lease index sorted set
  KEYS[7]  stats hash
  ARGV[1]  job key prefix ("queue:{NAME}:job:"), for ids trimmed off the failed history and the
           wake channel
  ARGV[2]  id
  ARGV[3]  claim token
  ARGV[4]  error message (stored as last_error)
  ARGV[5]  retry delay in ms (<= 0: back to pending at once)
  ARGV[6]  1 if the failure is permanent (no retry), else 0
  ARGV[7]  default max attempts, for a hash without max_attempts
  ARGV[8]  failed TTL in seconds (0 = no TTL)
  ARGV[9]  failed history cap (-1 = no cap)
  ARGV[10] events channel ('' = publish nothing)
  Returns: 0 not the owner (nothing changed) | 1 retried now | 2 dead-lettered | 3 retry delayed
  Publishes: on "queue:{NAME}:wake", the ms until a delayed retry is due, when it is now the
           first delayed job due (see lib/due-notice.lua)
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/history.lua
--@include lib/dead-letter.lua
--@include lib/due-notice.lua
--@include lib/flow.lua
--@include lib/free-slots.lua

local key, id, token, reason = KEYS[1], ARGV[2], ARGV[3], ARGV[4]
local owned = holds_claim(key, token) and remove_from_list(KEYS[2], id) == 1
if not owned then return 0 end

local now = now_ms()
redis.call('ZREM', KEYS[6], id)
local f = redis.call('HMGET', key, 'attempts', 'max_attempts', 'slots', 'priority', 'group')
local attempts = tonumber(f[1]) or 0
local max_attempts = tonumber(f[2]) or tonumber(ARGV[7])
if f[3] then
  redis.call('HDEL', key, 'slots')
  free_slots(ARGV[1], id, f[3])
end
if ARGV[6] == '1' or attempts >= max_attempts then
  dead_letter({ job_prefix = ARGV[1], failed = KEYS[5], stats = KEYS[7], cap = tonumber(ARGV[9]),
    ttl = tonumber(ARGV[8]), channel = ARGV[10], now = now }, id, reason)
  return 2
end

redis.call('HSET', key, 'claim_token', '', 'claimed_at_ms', 0, 'last_error', reason,
  'last_error_at_ms', now)
redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms')
redis.call('HINCRBY', KEYS[7], 'retried_total', 1)
publish_event(ARGV[10], id, 'retry')
local delay = tonumber(ARGV[5])
if delay > 0 then
  redis.call('HSET', key, 'status', 'delayed', 'run_at_ms', now + delay)
  redis.call('ZADD', KEYS[4], now + delay, id)
  notice_due(KEYS[4], ARGV[1], now + delay, now)
  return 3
end
redis.call('HSET', key, 'status', 'pending')
push_pending(ARGV[1], KEYS[3], id, f[4], false, f[5])
return 1
