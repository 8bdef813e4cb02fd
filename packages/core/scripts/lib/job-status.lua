--@include lib/read-hash.lua
-- The status of the job hash at `key`, or nil when there is no job there: no key, or a key of
-- another type written by hand (reading it as a hash would abort the script with WRONGTYPE every
-- time it came round). A hash with no status (but an id or a payload) is pending.
local function job_status(key)
  local f = read_hash(key, 'status', 'id', 'payload')
  if not f or not (f[1] or f[2] or f[3]) then return nil end
  return f[1] or 'pending'
end
