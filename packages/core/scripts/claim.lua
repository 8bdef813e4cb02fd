#!lua flags=allow-oom
--[[
  claim: moves up to N jobs from the claim end of pending (the right) to the head of processing
  and stamps each one, in the same atomic step: status=processing, a fresh claim_token,
  claimed_at_ms, attempts+1, and a lease (deadline = now + the job's visibility) in the lease
  index. There is no moment at which a claimed job lacks its stamp (the recipe's B1).
  An id whose hash is gone, or whose hash says the job already finished, is dropped from
  processing and not returned (nothing can run without a payload, and a finished job must not
  run twice).

  KEYS[1]   pending list
  KEYS[2]   processing list
  KEYS[3]   lease index sorted set (member: id, score: lease deadline in ms)
  KEYS[4]   stats hash
  ARGV[1]   job key prefix ("queue:{NAME}:job:"), in this queue's hash slot
  ARGV[2]   default visibility ms, for jobs whose hash has no visibility_ms
  ARGV[3]   default max attempts, stamped on jobs whose hash has no max_attempts
  ARGV[4..] one fresh claim token per job wanted (N = #ARGV - 3)
  Returns:  { now ms, job, job, ... } where each job is { id, token, field, value, field, value, ... }
            (the job's whole hash after the stamp)
]]
--@include lib/now.lua
--@include lib/read-hash.lua

local job_prefix = ARGV[1]
local default_visibility = tonumber(ARGV[2])
local default_max_attempts = ARGV[3]
local wanted = #ARGV - 3
local now = now_ms()
local out = { now }
local claimed = 0
local dropped = 0
-- Bounded: every pass moves one id out of pending; dropped ids cannot keep the loop going past this.
local budget = wanted * 2 + 16

while claimed < wanted and budget > 0 do
  budget = budget - 1
  local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
  if not id then break end
  local key = job_prefix .. id
  -- One read for all we need; a key of another type reads as "no job".
  local f = read_hash(key, 'status', 'visibility_ms', 'attempts', 'max_attempts', 'id', 'payload')
  local exists = f and (f[1] or f[5] or f[6])
  local status = exists and (f[1] or 'pending')
  if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then
    redis.call('LPOP', KEYS[2])
    dropped = dropped + 1
  else
    claimed = claimed + 1
    local token = ARGV[3 + claimed]
    local deadline = now + (tonumber(f[2]) or default_visibility)
    -- attempts: not HINCRBY, since a hand-written non-number would abort the script halfway.
    local stamp = { 'status', 'processing', 'claim_token', token, 'claimed_at_ms', now,
      'lease_expires_at_ms', deadline, 'attempts', (tonumber(f[3]) or 0) + 1 }
    if not f[4] then
      stamp[#stamp + 1] = 'max_attempts'
      stamp[#stamp + 1] = default_max_attempts
    end
    redis.call('HSET', key, unpack(stamp))
    -- A hash that carried a TTL (left over from an earlier life) must not expire mid-job.
    redis.call('PERSIST', key)
    redis.call('ZADD', KEYS[3], deadline, id)
    local job = { id, token }
    local fields = redis.call('HGETALL', key)
    for i = 1, #fields do job[#job + 1] = fields[i] end
    out[#out + 1] = job
  end
end
if dropped > 0 then redis.call('HINCRBY', KEYS[4], 'dropped_total', dropped) end
return out
