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
--@include lib/job-status.lua

local ids
if ARGV[2] == 'zset' then
  ids = redis.call('ZRANGE', KEYS[1], ARGV[3], ARGV[4])
else
  ids = redis.call('LRANGE', KEYS[1], ARGV[3], ARGV[4])
end
local first, last, step = 1, #ids, 1
if ARGV[5] == '1' then first, last, step = #ids, 1, -1 end
local out = {}
for i = first, last, step do
  local fields = {}
  if job_status(ARGV[1] .. ids[i]) then fields = redis.call('HGETALL', ARGV[1] .. ids[i]) end
  if #fields > 0 then
    local job = { ids[i] }
    for f = 1, #fields do job[#job + 1] = fields[f] end
    out[#out + 1] = job
  end
end
return out
