#!lua flags=allow-oom
--[[
  claim: promotes delayed jobs that are due, then claims up to N jobs from the claim end of
  pending (the right), each moved to the head of processing and stamped in the same atomic
  step (status=processing, a fresh claim_token, claimed_at_ms, attempts+1, a lease in the lease
  index). Ids of finished or vanished jobs are dropped, never returned.

  KEYS[1]   pending: pending list
  KEYS[2]   processing: processing list
  KEYS[3]   leases: lease index sorted set (member: id, score: lease deadline in ms)
  KEYS[4]   stats: stats hash
  KEYS[5]   delayed: delayed sorted set
  KEYS[6]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:"), in this queue's hash slot
  ARGV[2]   visibilityMs: default visibility ms, for jobs whose hash has no visibility_ms
  ARGV[3]   maxAttempts: default max attempts, stamped on jobs whose hash has no max_attempts
  ARGV[4]   max: N, the most jobs to claim
  ARGV[5]   tokenBase: token base: 12 fresh random hex digits per call; the n-th claim's token is base .. %04x of n
  ARGV[6]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[7]   worker: the claiming worker's id, for the event log ('' = none)
  Returns:  { now ms, due time of the next delayed job in ms or -1,
              then CLAIM_STRIDE values per claimed job: id, token, attempts, max_attempts, lease
              deadline ms, payload, kind, enqueued_at_ms, last_error (nil when the hash has none) }
  Reply:    [nowMs: number, nextDueMs: number, ...claimed: Array<string | number | null>]
]]
--@include lib/now.lua
--@include lib/promote-due.lua
--@include lib/claim-jobs.lua

local now = now_ms()
local log = open_log(KEYS[6], ARGV[6], ARGV[1])
local _, next_due = promote_due(KEYS[5], KEYS[1], ARGV[1], 1000, now, log)
local out = { now, next_due }
claim_jobs(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5], now, out, log, ARGV[7])
return out
