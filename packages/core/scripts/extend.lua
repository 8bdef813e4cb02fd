#!lua flags=allow-oom
--[[
  extend: renews the leases of one or more claimed jobs in one call (a worker renews all its
  jobs per tick, not one call per job). Like SQS's ChangeMessageVisibility, the new deadline is
  now + the given time, not the old deadline plus it. Fenced: a job whose token no longer
  matches (it was reclaimed or finished) is not renewed, and the caller learns it.
  A job that holds a running slot of a concurrency cap (see lib/limits.lua) renews it too; once
  its lease has expired the slot may be another job's, so such a job is not renewed (lost).
  A renewal also moves claimed_at_ms to now, since a recipe reclaimer judges a claim by
  claimed_at_ms + its visibility and would otherwise take a healthy long job; the attempt's
  claim time moves to first_claimed_at_ms at its first renewal (claim itself stays as it was),
  with the claim's token in first_claim_token.

  KEYS[1]   leases: lease index sorted set
  KEYS[2..] jobs: the job hash of each job, in the order of the ARGV pairs
  ARGV[1]   leaseMs: lease length in ms, counted from now
  ARGV[2]   prefix: the queue's key prefix ("queue:{NAME}:"), for the running sets of capped
            jobs (see lib/limits.lua)
  ARGV[3..] claims: per job, 2 values: id, claim token
  Returns:  per job the new deadline in ms, or CLAIM_CANCELLED (-1) if the job was cancelled
            while the caller ran it, or NOT_OWNER (0) if the caller no longer owns it otherwise
  Reply:    number[]
]]
--@include lib/now.lua
--@include lib/holds-claim.lua
--@include lib/admission.lua

-- Moves the deadline of the running slots a job holds (JSON {q = true, k = kind, g = group}) with its lease.
local function renew_slots(prefix, id, slots_text, deadline_text)
  load_admission()
  local ok, slots = pcall(cjson.decode, slots_text)
  if not ok or type(slots) ~= 'table' then return end
  if type(slots.k) == 'string' then redis.call('ZADD', kind_running(prefix, slots.k), 'XX', deadline_text, id) end
  if type(slots.g) == 'string' then redis.call('ZADD', group_running(prefix, slots.g), 'XX', deadline_text, id) end
  if slots.q == true then redis.call('ZADD', queue_running(prefix), 'XX', deadline_text, id) end
end

local now = now_ms()
local now_text = int_text(now)
local deadline = now + tonumber(ARGV[1])
local deadline_text = int_text(deadline)
local out = {}
for j = 0, (#ARGV - 2) / 2 - 1 do
  local id, token = ARGV[3 + j * 2], ARGV[4 + j * 2]
  local key = KEYS[2 + j]
  -- holds_claim's check, reading the claim times and running slots in the same call.
  local f = token ~= '' and read_hash(key, 'status', 'claim_token', 'claimed_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'slots', 'lease_expires_at_ms')
  if f and f[1] == 'processing' and f[2] == token and not (f[6] and (tonumber(f[7]) or 0) <= now) then
    if f[6] then renew_slots(ARGV[2], id, f[6], deadline_text) end
    redis.call('ZADD', KEYS[1], deadline_text, id)
    -- first_claimed_at_ms is this attempt's only when first_claim_token names this claim: a
    -- recipe client's reclaim leaves both behind from an earlier attempt (it knows neither),
    -- and may fall in the same millisecond as that attempt's claim, so no time comparison
    -- can tell. This attempt's claim time is then claimed_at_ms, not yet moved.
    if not f[4] or f[5] ~= token then
      local claimed = tonumber(f[3])
      redis.call('HSET', key, 'lease_expires_at_ms', deadline_text, 'claimed_at_ms', now_text,
        'first_claimed_at_ms', claimed and claimed > 0 and f[3] or now_text, 'first_claim_token', token)
    else
      redis.call('HSET', key, 'lease_expires_at_ms', deadline_text, 'claimed_at_ms', now_text)
    end
    out[#out + 1] = deadline
  elseif f and cancelled_claim(key, f[1], token) then
    out[#out + 1] = CLAIM_CANCELLED
  else
    out[#out + 1] = NOT_OWNER
  end
end
return out
