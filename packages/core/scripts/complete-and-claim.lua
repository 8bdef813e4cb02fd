#!lua flags=allow-oom
--[[
  complete-and-claim: what a busy worker sends: completes the jobs it finished (exactly as
  complete.lua does, fenced by their tokens) and, in the same atomic step and round trip,
  promotes due delayed jobs and claims up to N next ones (exactly as claim.lua does).

  KEYS[1]   pending: pending list
  KEYS[2]   processing: processing list
  KEYS[3]   leases: lease index sorted set
  KEYS[4]   stats: stats hash
  KEYS[5]   delayed: delayed sorted set
  KEYS[6]   completed: completed list
  KEYS[7]   failed: failed list (expired jobs go there)
  KEYS[8]   admission: admission hash (see lib/admission.lua)
  KEYS[9]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]   visibilityMs: default visibility ms
  ARGV[3]   maxAttempts: default max attempts
  ARGV[4]   max: N, the most jobs to claim (0 = claim none)
  ARGV[5]   tokenBase: token base: 12 fresh random hex digits per call; the n-th claim's token is base .. %04x of n
  ARGV[6]   ttlSeconds: completed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[7]   historyCap: completed history cap
  ARGV[8]   channel: events channel ('' = publish nothing)
  ARGV[9]   onlyHeard: '1': publish only when the channel has a subscriber on this server; '0': always
  ARGV[10]  failedTtlSeconds: failed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[11]  failedHistoryCap: failed history cap (-1 = no cap)
  ARGV[12]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[13]  wakeChannel: the wake channel (see lib/due-notice.lua), for a flow's parent started with a delay
  ARGV[14]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[15]  worker: the worker's id, for the event log ('' = none)
  ARGV[16]  traced: '1': also return each claimed job's traceparent (as claim.lua does); '0': not
  ARGV[17..] completions: per job to complete, 3 values: id, claim token, result JSON
  Returns:  { now ms, due time of the next delayed job in ms or -1 (CLAIM_PAUSED: the queue is
              paused), M (jobs given to complete),
              M values CLAIM_DONE (completed) or NOT_OWNER (not the caller's; nothing changed),
              then CLAIM_STRIDE (traced: CLAIM_TRACED_STRIDE) values per claimed job as
              claim.lua returns them }
  Reply:    [nowMs: number, nextDueMs: number, count: number, ...rest: Array<string | number | null>]
]]
--@include lib/now.lua
--@include lib/complete-jobs.lua
--@include lib/promote-due.lua
--@include lib/claim-jobs.lua

local FIRST_COMPLETION = 17
local now = now_ms()
local log = open_log(KEYS[9], ARGV[14], ARGV[1])
local out = { now, -1, (#ARGV - FIRST_COMPLETION + 1) / 3 }
complete_jobs({ processing = KEYS[2], completed = KEYS[6], leases = KEYS[3], stats = KEYS[4],
  job_prefix = ARGV[1], ttl = tonumber(ARGV[6]), cap = tonumber(ARGV[7]), channel = ARGV[8],
  only_heard = ARGV[9], now = now, pending = KEYS[1], delayed = KEYS[5], wake = ARGV[13], prefix = ARGV[12],
  log = log, worker = ARGV[15] }, ARGV, FIRST_COMPLETION, out)
local wanted = tonumber(ARGV[4])
if wanted > 0 then
  local _, next_due = promote_due(KEYS[5], KEYS[1], ARGV[1], ARGV[12], 1000, now, log)
  out[2] = next_due
  claim_ready({ pending = KEYS[1], processing = KEYS[2], leases = KEYS[3], stats = KEYS[4], failed = KEYS[7],
    admission = KEYS[8], job_prefix = ARGV[1], prefix = ARGV[12], visibility = tonumber(ARGV[2]), max_attempts = ARGV[3],
    token_base = ARGV[5], ttl = tonumber(ARGV[10]), cap = tonumber(ARGV[11]), channel = ARGV[8], now = now,
    delayed = KEYS[5], wake = ARGV[13], log = log, worker = ARGV[15], traced = ARGV[16] == '1' }, wanted, out)
end
return out
