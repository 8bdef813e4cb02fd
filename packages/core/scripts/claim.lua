#!lua flags=allow-oom
--[[
  claim: promotes delayed jobs that are due, then claims up to N jobs from the claim end of
  pending (the right), each moved to the head of processing and stamped in the same atomic
  step (status=processing, a fresh claim_token, claimed_at_ms, attempts+1, a lease in the lease
  index). Ids of finished or vanished jobs are dropped, never returned; expired jobs go to
  failed. With admission in use (the admission hash exists): higher priorities first, a paused
  queue claims nothing, a paused kind's jobs are parked (see lib/admission.lua, lib/claim-jobs.lua).

  KEYS[1]   pending: pending list
  KEYS[2]   processing: processing list
  KEYS[3]   leases: lease index sorted set (member: id, score: lease deadline in ms)
  KEYS[4]   stats: stats hash
  KEYS[5]   delayed: delayed sorted set
  KEYS[6]   failed: failed list (expired jobs go there)
  KEYS[7]   admission: admission hash (see lib/admission.lua)
  KEYS[8]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:"), in this queue's hash slot
  ARGV[2]   visibilityMs: default visibility ms, for jobs whose hash has no visibility_ms
  ARGV[3]   maxAttempts: default max attempts, stamped on jobs whose hash has no max_attempts
  ARGV[4]   max: N, the most jobs to claim
  ARGV[5]   tokenBase: token base: 12 fresh random hex digits per call; the n-th claim's token is base .. %04x of n
  ARGV[6]   failedTtlSeconds: failed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[7]   failedHistoryCap: failed history cap (-1 = no cap)
  ARGV[8]   channel: events channel ('' = publish nothing)
  ARGV[9]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[10]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[11]  worker: the claiming worker's id, for the event log ('' = none)
  ARGV[12]  traced: '1': also return each job's traceparent (a worker that traces); '0': not
  Returns:  { now ms, due time of the next delayed job in ms or -1 (CLAIM_PAUSED: the queue is
              paused), then CLAIM_STRIDE values per claimed job: id, token, attempts,
              max_attempts, lease deadline ms, payload, kind, enqueued_at_ms, last_error,
              priority (nil when the hash has none); traced: CLAIM_TRACED_STRIDE values, those
              and the traceparent (nil when none) }
  Reply:    [nowMs: number, nextDueMs: number, ...claimed: Array<string | number | null>]
]]
--@include lib/now.lua
--@include lib/promote-due.lua
--@include lib/claim-jobs.lua

local now = now_ms()
local log = open_log(KEYS[8], ARGV[10], ARGV[1])
local _, next_due = promote_due(KEYS[5], KEYS[1], ARGV[1], ARGV[9], 1000, now, log)
local out = { now, next_due }
claim_ready({ pending = KEYS[1], processing = KEYS[2], leases = KEYS[3], stats = KEYS[4], failed = KEYS[6],
  admission = KEYS[7], job_prefix = ARGV[1], prefix = ARGV[9], visibility = tonumber(ARGV[2]), max_attempts = ARGV[3],
  token_base = ARGV[5], ttl = tonumber(ARGV[6]), cap = tonumber(ARGV[7]), channel = ARGV[8], now = now,
  log = log, worker = ARGV[11], delayed = KEYS[5], traced = ARGV[12] == '1' }, tonumber(ARGV[4]), out)
return out
