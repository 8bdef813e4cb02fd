-- Publishes the recipe's event message {"id":...,"status":...} on the queue's channel,
-- inside the script so that no state change can happen without its event. '' = events off.
local function publish_event(channel, id, status)
  if channel ~= '' then
    redis.call('PUBLISH', channel, '{"id":' .. cjson.encode(id) .. ',"status":"' .. status .. '"}')
  end
end

-- The channel to publish a batch's events on: '' when events are off, or when `only_heard` is
-- '1' and no client subscribes to the channel, nor to any pattern (a pattern may match it). A
-- skipped event is one nobody could receive, so this is exact on a single server; in a cluster
-- a subscriber on another node is not counted here, so there the caller passes '0'. A user
-- refused the question (a tenant's, before its client learnt that at start) publishes outright.
local function heard_channel(channel, only_heard)
  if channel == '' or only_heard ~= '1' then return channel end
  local subscribers = redis.pcall('PUBSUB', 'NUMSUB', channel)
  if subscribers.err then
    local refused = string.find(subscribers.err, 'NOPERM', 1, true) or string.find(subscribers.err, "can't run this command", 1, true)
    if not refused then error(subscribers) end
    return channel
  end
  if subscribers[2] == 0 and redis.call('PUBSUB', 'NUMPAT') == 0 then
    return ''
  end
  return channel
end
