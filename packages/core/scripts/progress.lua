#!lua flags=allow-oom
--[[
  progress: records a running job's progress, fenced like complete: only the holder of the
  live claim can write it (a worker whose lease was lost cannot). Stores the JSON in the hash
  with a count of the reports so far (`progress_seq`), and publishes the recipe's event message
  with both: {"id":...,"status":"processing","progress":...,"progress_seq":N} (a recipe
  listener reads a status it knows; the count lets a listener put reads and events in order).

  KEYS[1]  job: the job's hash
  KEYS[2]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  id: the job's id
  ARGV[2]  token: claim token
  ARGV[3]  progress: progress JSON
  ARGV[4]  channel: events channel ('' = publish nothing)
  ARGV[5]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[6]  jobPrefix: job key prefix ("queue:{NAME}:job:"), for the event log
  ARGV[7]  worker: the worker's id, for the event log ('' = none)
  Returns: CLAIM_DONE stored, NOT_OWNER not the caller's claim (nothing changed)
  Reply:   number
]]
--@include lib/now.lua
--@include lib/holds-claim.lua
--@include lib/log-event.lua

if not holds_claim(KEYS[1], ARGV[2]) then return NOT_OWNER end
local seq = redis.call('HINCRBY', KEYS[1], 'progress_seq', 1)
redis.call('HSET', KEYS[1], 'progress', ARGV[3], 'progress_at_ms', int_text(now_ms()))
if ARGV[4] ~= '' then
  redis.call('PUBLISH', ARGV[4], '{"id":' .. cjson.encode(ARGV[1]) .. ',"status":"processing","progress":' .. ARGV[3] .. ',"progress_seq":' .. seq .. '}')
end
-- In the stream only: a job that reports often would push its state changes out of its timeline.
log_event(open_log(KEYS[2], ARGV[5], ARGV[6]), ARGV[1], 'progress', nil, ARGV[7], '', nil, true)
return CLAIM_DONE
