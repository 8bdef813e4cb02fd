#!lua flags=no-writes
--[[
  timeline: a job's own events from the event log, read in one step without scanning the
  stream: the job's hash lists the stream ids of its last events (field log_ids, see
  lib/log-event.lua), and each is read with XRANGE id id. Ids the stream has trimmed since are
  counted, not returned; so is a word that is no stream id (a hash written by another client),
  which XRANGE would refuse, failing the whole read.

  KEYS[1]  job: the job's hash
  KEYS[2]  log: the event log stream
  ARGV[1]  limit: most entries to read, the newest
  Returns: { 1 if the job exists else 0, count of ids trimmed off the stream,
             then per entry still in the stream: { stream id, field, value, ... } }
  Reply:   [exists: number, trimmed: number, ...entries: Array<Array<string>>]
]]
--@include lib/job-status.lua

if not job_status(KEYS[1]) then return { 0, 0 } end
local ids = redis.call('HGET', KEYS[1], 'log_ids')
local out = { 1, 0 }
if not ids then return out end
local listed = {}
for entry_id in string.gmatch(ids, '%S+') do listed[#listed + 1] = entry_id end
for i = math.max(1, #listed - tonumber(ARGV[1]) + 1), #listed do
  local entry_id = listed[i]
  local found = string.match(entry_id, '^%d+%-%d+$') and redis.call('XRANGE', KEYS[2], entry_id, entry_id) or {}
  if found[1] then
    local entry = { found[1][1] }
    for _, value in ipairs(found[1][2]) do entry[#entry + 1] = value end
    out[#out + 1] = entry
  else
    out[2] = out[2] + 1
  end
end
return out
