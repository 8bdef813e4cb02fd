--@include lib/read-hash.lua
-- Per-job codes of the verbs a claim fences: done, or the claim is not the caller's (nothing changed).
local CLAIM_DONE = 1 --@export
local NOT_OWNER = 0 --@export
-- Not the caller's any more because the job was cancelled while it ran (see cancel.lua).
local CLAIM_CANCELLED = -1 --@export

-- True when token is a live claim on the job in `key`: non-empty (an empty token matches
-- nothing: the recipe's B10), equal to the hash's claim_token, and the job still processing.
-- Also returns the values read: status, claim_token, then any `...` fields asked for with them.
local function holds_claim(key, token, ...)
  if token == '' then return false end
  local f = read_hash(key, 'status', 'claim_token', ...)
  return f ~= nil and f[1] == 'processing' and f[2] == token, f
end

-- True when the claim `token` on the job in `key` (whose status `status` was read already) was
-- voided by a cancel while it ran, rather than lost to a reclaim or finished.
local function cancelled_claim(key, status, token)
  return status == 'cancelled' and token ~= '' and redis.call('HGET', key, 'cancelled_claim_token') == token
end
