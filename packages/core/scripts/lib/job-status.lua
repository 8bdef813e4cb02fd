-- The status of the job hash at `key`, or nil when there is no hash there: no key at all, or a
-- key of another type written by hand. Such an id is not a job, and reading it as a hash would
-- abort the script (WRONGTYPE) every time it came round. A hash without a status is pending.
local function job_status(key)
  if redis.call('TYPE', key).ok ~= 'hash' then return nil end
  return redis.call('HGET', key, 'status') or 'pending'
end
