#!lua flags=allow-oom
--[[
  promote: moves delayed jobs whose time has come (retries waiting out their backoff, jobs
  enqueued with a delay) onto pending, in due order, at most ARGV[2] per call. An id whose hash
  is gone or no longer says delayed (it was cancelled) is dropped.

  KEYS[1]  delayed sorted set
  KEYS[2]  pending list
  ARGV[1]  job key prefix ("queue:{NAME}:job:")
  ARGV[2]  most jobs to promote in this call
  Returns: { promoted count, due time of the next delayed job in ms or -1, now ms }
]]
--@include lib/now.lua
--@include lib/job-status.lua

local now = now_ms()
local due = redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
local promoted = 0
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local key = ARGV[1] .. id
  if job_status(key) == 'delayed' then
    redis.call('HSET', key, 'status', 'pending')
    redis.call('LPUSH', KEYS[2], id)
    promoted = promoted + 1
  end
end
local next_due = -1
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[2] then next_due = tonumber(head[2]) end
return { promoted, next_due, now }
