#!lua flags=no-writes
--[[
  waiting: one page of every job waiting to start, read in one step, in the order claims take
  them: the lists of priorities above 0 (highest first), pending, the lists of priorities below
  0, the parked lists of paused or limited kinds (by kind), then each group's list behind its
  carrier (in the order of the groups' turns). Each list is read from its claim end. A queue
  without admission state has pending alone. Ids whose hash is gone are skipped, as peek.lua does.
  Work per call: one LLEN per list before the page's end, and the page's hashes. ARGV[5] reads
  one part of them alone, in the same order: 'prioritized' (the lists of priorities other than
  0), 'parked' or 'grouped'.

  KEYS[1]  pending: pending list
  KEYS[2]  admission: admission hash (see lib/admission.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[3]  offset: how many waiting jobs to skip, in claim order
  ARGV[4]  limit: the most jobs to return
  ARGV[5]  part: 'all' (every waiting job), 'prioritized', 'parked' or 'grouped'
  Returns: { skipped: the waiting jobs passed over before the page (less than offset when fewer
             wait), taken: the ids the page took (jobs whose hash is gone among them),
             { id, field, value, ... } per job of the page }
  Reply:   [skipped: number, taken: number, ...jobs: Array<Array<string>>]
]]
--@include lib/read-jobs.lua
--@include lib/admission.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
local prefix = ARGV[2]
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local skip, left = offset, limit
local ids = {}

-- Takes the page's share of `list`, from its claim end (the right); false once the page is full.
local function take(list)
  if left <= 0 then return false end
  local length = redis.call('LLEN', list)
  if skip >= length then
    skip = skip - length
    return true
  end
  local count = math.min(left, length - skip)
  local window = redis.call('LRANGE', list, -(skip + count), -(skip + 1))
  for i = #window, 1, -1 do ids[#ids + 1] = window[i] end
  left = left - count
  skip = 0
  return left > 0
end

local part = ARGV[5]
local all = part == 'all'
local admission = redis.call('HGETALL', KEYS[2])
if #admission == 0 then
  if all then take(KEYS[1]) end
else
  local going = true
  local levels = all or part == 'prioritized'
  if levels then
    for _, level in ipairs(redis.call('ZRANGE', levels_set(prefix), '+inf', '(0', 'BYSCORE', 'REV')) do
      going = take(priority_list(prefix, tonumber(level)))
      if not going then break end
    end
  end
  if all then going = going and take(KEYS[1]) end
  if going and levels then
    for _, level in ipairs(redis.call('ZRANGE', levels_set(prefix), '(0', '-inf', 'BYSCORE', 'REV')) do
      going = take(priority_list(prefix, tonumber(level)))
      if not going then break end
    end
  end
  going = going and (all or part == 'parked' or part == 'grouped')
  if going and part ~= 'grouped' then
    for _, kind in ipairs(parking_kinds(admission)) do
      going = take(parked_list(prefix, kind))
      if not going then break end
    end
  end
  going = going and part ~= 'parked'
  -- The groups a thousand at a time: a first page does not read a million group names.
  local from = 0
  while going do
    local groups = redis.call('ZRANGE', groups_set(prefix), from, from + 999)
    for _, group in ipairs(groups) do
      going = take(group_list(prefix, group))
      if not going then break end
    end
    if #groups < 1000 then break end
    from = from + 1000
  end
end

local out = { offset - skip, #ids }
append_jobs(ARGV[1], ids, 1, #ids, 1, out)
return out
