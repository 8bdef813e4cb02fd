#!lua flags=no-writes
--[[
  attempts: what a job's attempts history is made of, read in one step: the hash's fields that
  describe its last attempt, its trail's records of ended attempts (see lib/job-trail.lua), and
  who claimed each attempt, from the job's own events in the event log (indexed in its hash:
  see lib/log-event.lua; none when the log is off or has trimmed them). Changes nothing.

  KEYS[1]  job: the job's hash
  KEYS[2]  attempts: the job's ended attempts (see lib/job-trail.lua)
  KEYS[3]  log: the event log stream
  ARGV[1]  events: most of the job's indexed events to look at for claims, the newest
  Returns: {} when there is no such job, else { the fields (in the order of FIELDS below, false
           for none), the records oldest first, the claims as attempt, worker pairs }
  Reply:   [] | [fields: Array<string | null>, records: Array<string>, claims: Array<string>]
]]
--@include lib/job-status.lua

if not job_status(KEYS[1]) then return {} end
local fields = redis.call('HMGET', KEYS[1], 'status', 'attempts', 'claimed_at_ms', 'first_claimed_at_ms',
  'first_claim_token', 'claim_token', 'reclaimed_at_ms', 'completed_at_ms', 'failed_at_ms', 'last_error',
  'last_error_at_ms', 'last_error_json', 'attempts_trimmed', 'log_ids')
local records = redis.call('LRANGE', KEYS[2], 0, -1)
local claims = {}
local listed = {}
for entry_id in string.gmatch(fields[14] or '', '%S+') do listed[#listed + 1] = entry_id end
for i = math.max(1, #listed - tonumber(ARGV[1]) + 1), #listed do
  local entry_id = listed[i]
  local found = string.match(entry_id, '^%d+%-%d+$') and redis.call('XRANGE', KEYS[3], entry_id, entry_id) or {}
  local entry = found[1] and found[1][2]
  if entry then
    local event = {}
    for j = 1, #entry, 2 do event[entry[j]] = entry[j + 1] end
    if event.event == 'claimed' then
      claims[#claims + 1] = event.attempt or ''
      claims[#claims + 1] = event.worker or ''
    end
  end
end
fields[14] = false
return { fields, records, claims }
