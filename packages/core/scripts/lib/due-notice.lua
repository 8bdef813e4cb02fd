--@include lib/now.lua
-- Tells waiting workers that a delayed job has just become the first one due. A worker learns
-- when the next delayed job is due from its own claims and waits until then (or for a push onto
-- pending); one added during that wait, due sooner, would otherwise start only when the wait
-- ends. Publishes the ms until `due` on the queue's wake channel `wake` (from keys.ts, through
-- ARGV) when no job in `delayed` is due earlier; a worker
-- that hears it promotes the job when its time comes, and that push wakes the waiting claims.
local function notice_due(delayed, wake, due, now)
  local head = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if head[2] and tonumber(head[2]) < due then return end
  -- A notice is a courtesy: a Redis user whose ACL rules predate the wake channel still delays
  -- its job, and the workers start it when their wait ends. Any other error is raised. (Redis
  -- 7.0 words the refusal "The user executing the script can't publish to the channel...".)
  local sent = redis.pcall('PUBLISH', wake, int_text(math.max(0, due - now)))
  if type(sent) == 'table' and sent.err and not (string.find(sent.err, 'NOPERM', 1, true)
      or string.find(sent.err, "can't publish", 1, true)) then
    error(sent)
  end
end
