--@include lib/job-status.lua
-- Appends { id, field, value, ... } to `out` for each id of `ids` from index `first` to `last` by
-- `step` (-1 reads them in reverse), with the hash of its job. An id without a job hash (expired,
-- or a key of another type) is left out: an id with no hash is not a job.
local function append_jobs(job_prefix, ids, first, last, step, out)
  for i = first, last, step do
    local key = job_prefix .. ids[i]
    if job_status(key) then
      local fields = redis.call('HGETALL', key)
      local job = { ids[i] }
      for f = 1, #fields do job[#job + 1] = fields[f] end
      out[#out + 1] = job
    end
  end
end
