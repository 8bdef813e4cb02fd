#!lua flags=no-writes
--[[
  job-logs: a job's log lines (its handler's `ctx.log`, see lib/job-trail.lua), the newest
  `limit` of them, oldest first, with how many were cut, read in one step. Changes nothing.

  KEYS[1]  job: the job's hash
  KEYS[2]  logs: the job's log lines
  ARGV[1]  limit: most lines to read, the newest
  Returns: {} when there is no such job, else { lines trimmed (by the cap), lines left out by
           `limit`, then each line as stored }
  Reply:   [] | [trimmed: number | string, skipped: number, ...lines: Array<string>]
]]
--@include lib/job-status.lua

if not job_status(KEYS[1]) then return {} end
local trimmed = redis.call('HGET', KEYS[1], 'logs_trimmed') or '0'
local length = redis.call('LLEN', KEYS[2])
local limit = tonumber(ARGV[1])
local skipped = math.max(0, length - limit)
local out = { trimmed, skipped }
for _, line in ipairs(redis.call('LRANGE', KEYS[2], skipped, -1)) do out[#out + 1] = line end
return out
