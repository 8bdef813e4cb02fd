--@include lib/read-hash.lua
-- Per-job codes of the verbs a claim fences: done, or the claim is not the caller's (nothing changed).
local CLAIM_DONE = 1 --@export
local NOT_OWNER = 0 --@export

-- True when token is a live claim on the job in `key`: non-empty (an empty token matches
-- nothing: the recipe's B10), equal to the hash's claim_token, and the job still processing.
-- Also returns the values read: status, claim_token, then any `...` fields asked for with them.
local function holds_claim(key, token, ...)
  if token == '' then return false end
  local f = read_hash(key, 'status', 'claim_token', ...)
  return f ~= nil and f[1] == 'processing' and f[2] == token, f
end
