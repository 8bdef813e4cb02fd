#!lua flags=no-writes
--[[
  peek: one page of a list or of the delayed set with each job's hash, read in one step (a
  snapshot, unlike the recipe's N separate reads). Ids whose hash has expired are skipped: an
  id with no hash is not a job.

  KEYS[1]  list: the list (pending, processing, completed, failed) or the delayed sorted set
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  type: 'list' or 'zset'
  ARGV[3]  start: start index (LRANGE / ZRANGE semantics, negative counts from the end)
  ARGV[4]  stop: stop index, inclusive
  ARGV[5]  reverse: '1' to return the page in reverse order (pending oldest first), else '0'
  Returns: { { id, field, value, ... }, ... }
  Reply:   string[][]
]]
--@include lib/read-jobs.lua

local ids
if ARGV[2] == 'zset' then
  ids = redis.call('ZRANGE', KEYS[1], ARGV[3], ARGV[4])
else
  ids = redis.call('LRANGE', KEYS[1], ARGV[3], ARGV[4])
end
local out = {}
if ARGV[5] == '1' then
  append_jobs(ARGV[1], ids, #ids, 1, -1, out)
else
  append_jobs(ARGV[1], ids, 1, #ids, 1, out)
end
return out
