--@include lib/now.lua
--@include lib/events.lua
--@include lib/due-notice.lua
-- Sends a claimed job back to wait in the delayed set until `due` without counting the attempt
-- it was claimed for (a snooze, a hand-off): the caller has taken it out of processing and the
-- lease index and given back its running slots. Its attempts go back by one, as a release's do
-- (`attempts_text`: the hash's attempts as read), its claim fields are cleared, the field
-- `marker` keeps the voided token so that a resend can tell this was done, and waiting workers
-- are told when it is now the first job due. c: { delayed, wake, channel }.
local function wait_again(c, key, id, token, attempts_text, marker, due, now)
  local attempts = tonumber(attempts_text)
  if attempts and attempts >= 1 then redis.call('HSET', key, 'attempts', int_text(attempts - 1)) end
  redis.call('HSET', key, 'status', 'delayed', 'run_at_ms', int_text(due), 'claim_token', '', 'claimed_at_ms', '0', marker, token)
  redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token')
  redis.call('ZADD', c.delayed, due, id)
  notice_due(c.delayed, c.wake, due, now)
  publish_event(c.channel, id, 'delayed')
end
