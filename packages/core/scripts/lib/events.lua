-- Publishes the recipe's event message {"id":...,"status":...} on the queue's channel,
-- inside the script so that no state change can happen without its event. '' = events off.
local function publish_event(channel, id, status)
  if channel ~= '' then
    redis.call('PUBLISH', channel, '{"id":' .. cjson.encode(id) .. ',"status":"' .. status .. '"}')
  end
end
