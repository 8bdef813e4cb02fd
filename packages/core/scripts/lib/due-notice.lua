--@include lib/now.lua
-- Tells waiting workers that a delayed job has just become the first one due. A worker learns
-- when the next delayed job is due from its own claims and waits until then (or for a push onto
-- pending); one added during that wait, due sooner, would otherwise start only when the wait
-- ends. Publishes the ms until `due` on the queue's wake channel `wake` (from keys.ts, through
-- ARGV) when no job in `delayed` is due earlier; a worker
-- that hears it promotes the job when its time comes, and that push wakes the waiting claims.
-- Publishes `message` on `channel` as a courtesy: a Redis user whose ACL rules predate the
-- channel (the wake channel, the control channel) still makes its change, and what the message
-- would hurry happens anyway. Any other error is raised. (Redis 7.0 words the refusal "The user
-- executing the script can't publish to the channel...".)
local function publish_courtesy(channel, message)
  local sent = redis.pcall('PUBLISH', channel, message)
  if type(sent) == 'table' and sent.err and not (string.find(sent.err, 'NOPERM', 1, true)
      or string.find(sent.err, "can't publish", 1, true)) then
    error(sent)
  end
end

local function notice_due(delayed, wake, due, now)
  local head = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if head[2] and tonumber(head[2]) < due then return end
  -- Workers not told start it when their wait ends.
  publish_courtesy(wake, int_text(math.max(0, due - now)))
end
