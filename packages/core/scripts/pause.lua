#!lua flags=allow-oom
--[[
  pause: pauses or resumes a queue, or one kind of it (see lib/admission.lua). A paused queue's
  claims take nothing (and say so, so that workers wait on the resume list instead of pending);
  a paused kind's jobs are parked by the claims that meet them. Enqueues go on as usual. The
  state is a field of the admission hash, so it holds across worker and Redis restarts.
  A pause's field holds when it began (ms, Redis clock; a second pause keeps the first's time),
  which why.lua reports, and who paused it ('paused_by' and 'paused_by:<kind>', a caller's label,
  absent when none was given; kept with the first pause's time). Resuming a queue pushes a token onto the resume list: the claims
  blocked on it wake at once.
  Resuming a kind moves its parked jobs back to the claim end of their lists (they were the
  oldest there), at most ARGV[4] per call: 'unpark' moves the next batch, and stops when the
  kind has been paused again meanwhile. Each call moves what the kind's parked list holds now,
  so a call run twice (its reply lost) moves the next batch, and a pause marks the kind
  'parking' (see lib/unpark-jobs.lua): until its parked list is empty, stats and lists
  count it and sweeps (unpark.lua) finish a resume whose caller died.

  KEYS[1]  admission: admission hash
  KEYS[2]  resume: resume list
  KEYS[3]  pending: pending list
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  action: 'pause', 'resume' or 'unpark'
  ARGV[3]  kind: the kind ('' = the whole queue)
  ARGV[4]  batch: most parked jobs to move back in this call
  ARGV[5]  prefix: the queue's key prefix ("queue:{NAME}:"), for the parked and priority lists (see lib/admission.lua)
  ARGV[6]  by: who pauses, a short label ('' = not said), for 'pause'
  Returns: parked jobs of the kind left to move back (0 for the whole queue), or
           UNPARK_PAUSED_AGAIN when 'unpark' found the kind paused again
  Reply:   number
]]
--@include lib/unpark-jobs.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
local UNPARK_PAUSED_AGAIN = -1 --@export

local job_prefix, action, kind, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
if kind == '' then
  if action == 'pause' then
    if redis.call('HSETNX', KEYS[1], 'paused', int_text(now_ms())) == 1 and ARGV[6] ~= '' then
      redis.call('HSET', KEYS[1], 'paused_by', ARGV[6])
    end
    redis.call('DEL', KEYS[2])
  else
    redis.call('HDEL', KEYS[1], 'paused', 'paused_by')
    redis.call('DEL', KEYS[2])
    redis.call('LPUSH', KEYS[2], '1')
  end
  return 0
end

local field = 'paused_kind:' .. kind
if action == 'pause' then
  if redis.call('HSETNX', KEYS[1], field, int_text(now_ms())) == 1 and ARGV[6] ~= '' then
    redis.call('HSET', KEYS[1], 'paused_by:' .. kind, ARGV[6])
  end
  redis.call('HSET', KEYS[1], 'parking:' .. kind, '1')
  return redis.call('LLEN', parked_list(prefix, kind))
end
if action == 'resume' then
  redis.call('HDEL', KEYS[1], field, 'paused_by:' .. kind)
elseif redis.call('HEXISTS', KEYS[1], field) == 1 then
  return UNPARK_PAUSED_AGAIN
end
return unpark_jobs(prefix, job_prefix, KEYS[3], KEYS[1], kind, tonumber(ARGV[4]))
