#!lua flags=allow-oom
--[[
  progress: records a running job's progress, fenced like complete: only the holder of the
  live claim can write it (a worker whose lease was lost cannot). Stores the JSON in the hash
  and publishes the recipe's event message with it: {"id":...,"status":"processing",
  "progress":...} (a recipe listener reads a status it knows).

  KEYS[1]  the job's hash
  ARGV[1]  id
  ARGV[2]  claim token
  ARGV[3]  progress JSON
  ARGV[4]  events channel ('' = publish nothing)
  Returns: 1 stored, 0 not the caller's claim (nothing changed)
]]
--@include lib/now.lua
--@include lib/holds-claim.lua

if not holds_claim(KEYS[1], ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[3], 'progress_at_ms', int_text(now_ms()))
if ARGV[4] ~= '' then
  redis.call('PUBLISH', ARGV[4], '{"id":' .. cjson.encode(ARGV[1]) .. ',"status":"processing","progress":' .. ARGV[3] .. '}')
end
return 1
