--@include lib/read-hash.lua
-- True when token is a live claim on the job in `key`: non-empty (an empty token matches
-- nothing: the recipe's B10), equal to the hash's claim_token, and the job still processing.
local function holds_claim(key, token)
  if token == '' then return false end
  local f = read_hash(key, 'status', 'claim_token')
  return f ~= nil and f[1] == 'processing' and f[2] == token
end
