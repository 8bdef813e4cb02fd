--@include lib/job-status.lua
-- True when token is a live claim on the job in `key`: non-empty (an empty token matches
-- nothing: the recipe's B10), equal to the hash's claim_token, and the job still processing.
local function holds_claim(key, token)
  return token ~= ''
    and job_status(key) == 'processing'
    and redis.call('HGET', key, 'claim_token') == token
end
