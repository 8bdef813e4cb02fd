#!lua flags=allow-oom
--[[
  complete: completes one or more claimed jobs. Each completion is fenced: the token must be
  non-empty and equal the job's claim_token, the job must be in status processing, and its id
  must be in the processing list. Then the id leaves processing and the lease index, the hash
  records the result and clears claim_token (so a second complete, or a fail after complete,
  does nothing), the id goes onto the capped completed history, and the hash gets its TTL.
  Job hashes are built from the queue's hash-tagged prefix (the same slot as every key here).

  KEYS[1]   processing: processing list
  KEYS[2]   completed: completed list
  KEYS[3]   leases: lease index sorted set
  KEYS[4]   stats: stats hash
  KEYS[5]   pending: pending list, where a flow's parent goes once its children are done
  KEYS[6]   delayed: delayed sorted set, where such a parent goes while its run-at is ahead
  KEYS[7]   log: the event log stream (see lib/log-event.lua)
  ARGV[1]   jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]   ttlSeconds: completed TTL in seconds (0 = keep until trimmed off the history)
  ARGV[3]   historyCap: completed history cap (0 = keep no history)
  ARGV[4]   channel: events channel ('' = publish nothing)
  ARGV[5]   onlyHeard: '1': publish only when the channel has a subscriber on this server; '0': always
  ARGV[6]   wakeChannel: the wake channel (see lib/due-notice.lua)
  ARGV[7]   prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[8]   logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[9]   worker: the worker's id, for the event log ('' = none)
  ARGV[10..] completions: per job, 3 values: id, claim token, result JSON
  Returns:  per job CLAIM_DONE if completed, NOT_OWNER if the caller does not own the job
            (nothing changed)
  Reply:    number[]
]]
--@include lib/now.lua
--@include lib/complete-jobs.lua

local out = {}
complete_jobs({ processing = KEYS[1], completed = KEYS[2], leases = KEYS[3], stats = KEYS[4],
  job_prefix = ARGV[1], ttl = tonumber(ARGV[2]), cap = tonumber(ARGV[3]), channel = ARGV[4],
  only_heard = ARGV[5], now = now_ms(), pending = KEYS[5], delayed = KEYS[6], wake = ARGV[6],
  prefix = ARGV[7], log = open_log(KEYS[7], ARGV[8], ARGV[1]), worker = ARGV[9] }, ARGV, 10, out)
return out
