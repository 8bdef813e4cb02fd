#!lua flags=allow-oom
--[[
  promote: moves delayed jobs whose time has come (retries waiting out their backoff, jobs
  enqueued with a delay) onto pending, in due order, at most ARGV[2] per call. An id whose hash
  is gone or no longer says delayed (it was cancelled) is dropped.

  KEYS[1]  delayed: delayed sorted set
  KEYS[2]  pending: pending list
  KEYS[3]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  batch: most jobs to promote in this call
  ARGV[3]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[4]  logMaxLen: the event log's cap ('0' = the log is off)
  Returns: { promoted count, due time of the next delayed job in ms or -1, now ms }
  Reply:   [promoted: number, nextDueMs: number, nowMs: number]
]]
--@include lib/now.lua
--@include lib/promote-due.lua

local now = now_ms()
local promoted, next_due = promote_due(KEYS[1], KEYS[2], ARGV[1], ARGV[3], tonumber(ARGV[2]), now, open_log(KEYS[3], ARGV[4], ARGV[1]))
return { promoted, next_due, now }
