#!lua
--[[
  append-logs: appends a running job's log lines (its handler's `ctx.log`) to its trail, fenced
  like progress: only the holder of the live claim writes (a worker whose claim was lost writes
  nothing). Keeps the last `keep` lines; the hash's logs_trimmed counts the lines cut, here or
  by the caller before sending (see lib/job-trail.lua). Not allow-oom: a log line is not worth
  the memory a completion needs.

  KEYS[1]  job: the job's hash
  KEYS[2]  logs: the job's log lines (see lib/job-trail.lua)
  ARGV[1]  token: claim token
  ARGV[2]  keep: most lines kept
  ARGV[3]  dropped: lines the caller cut before sending, counted as trimmed
  ARGV[4..] lines: each line as stored, a JSON array [atMs, attempt, text]
  Returns: CLAIM_DONE stored, NOT_OWNER not the caller's claim (nothing changed)
  Reply:   number
]]
--@include lib/holds-claim.lua
--@include lib/job-trail.lua

load_job_trail()
local key, keep = KEYS[1], tonumber(ARGV[2])
if not holds_claim(key, ARGV[1]) then return NOT_OWNER end
local trimmed = tonumber(ARGV[3])
local length = 0
-- In slices: unpack has a limit on how many values it returns.
for from = 4, #ARGV, 1000 do
  length = redis.call('RPUSH', KEYS[2], unpack(ARGV, from, math.min(#ARGV, from + 999)))
end
if length > 0 then
  if length > keep then
    redis.call('LTRIM', KEYS[2], length - keep, -1)
    trimmed = trimmed + length - keep
  end
end
if trimmed > 0 then redis.call('HINCRBY', key, 'logs_trimmed', int_text(trimmed)) end
redis.call('HSET', key, 'trail', '1')
trail_hold(key, 0)
return CLAIM_DONE
