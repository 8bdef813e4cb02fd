-- True when token is a live claim on the job in `key`: non-empty (an empty token matches
-- nothing: the recipe's B10), equal to the hash's claim_token, and the job still processing.
local function holds_claim(key, token)
  if token == '' then return false end
  -- pcall: a key of another type is no claim (and must not abort the script).
  local f = redis.pcall('HMGET', key, 'status', 'claim_token')
  return not f.err and f[1] == 'processing' and f[2] == token
end
