#!lua flags=allow-oom
--[[
  unpark: moves back the parked jobs of every kind marked 'parking' (see lib/unpark-jobs.lua's
  unpark_jobs) that nothing holds back any more: not paused, not limited, no pushback. Those
  jobs wait for no claim (claims move back only the jobs of limited kinds) and no resume: a
  setLimits or a resume whose caller died, or a limit deleted by hand, leaves them here. At
  most ARGV[3] jobs per call, in the order a resume moves them; kinds still held back are left
  to their claims and resumes. What it moves is read from the state, so any number of callers
  (setLimits, the reclaimer's and the workers' sweeps) may run it at once, and a call run twice
  moves the next batch. The kinds the caller knows of (ARGV[4..]) are looked at too: one with
  parked jobs and no mark (parked before the marks existed) is marked, and moved back as well.

  KEYS[1]  admission: admission hash
  KEYS[2]  pending: pending list
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:"), for the parked and priority lists (see lib/admission.lua)
  ARGV[3]  batch: most parked jobs to move back in this call
  ARGV[4..] kinds: the kinds the caller knows of (none: only the marked ones)
  Returns: { ids taken off the parked lists (their jobs moved back; ids of jobs no longer
           pending dropped), jobs of such kinds left parked }
  Reply:   [moved: number, left: number]
]]
--@include lib/unpark-jobs.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()

local budget = tonumber(ARGV[3])
local moved, left = 0, 0
local kinds, seen = {}, {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  local kind = parking_kind_of(field)
  if kind then
    seen[kind] = true
    kinds[#kinds + 1] = kind
  end
end
for i = 4, #ARGV do
  if not seen[ARGV[i]] and redis.call('LLEN', parked_list(ARGV[2], ARGV[i])) > 0 then
    seen[ARGV[i]] = true
    kinds[#kinds + 1] = ARGV[i]
  end
end
for _, kind in ipairs(kinds) do
  if not kind_hold(KEYS[1], kind) then
    local before = redis.call('LLEN', parked_list(ARGV[2], kind))
    local after = unpark_jobs(ARGV[2], ARGV[1], KEYS[2], KEYS[1], kind, math.min(budget, before))
    moved = moved + before - after
    budget = budget - (before - after)
    left = left + after
  end
end
return { moved, left }
