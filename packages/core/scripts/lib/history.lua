--@include lib/job-status.lua
-- Pushes an id onto a capped history list (newest at the head) and deletes the hash of every id
-- trimmed off the far end, when that hash is still in the list's state: no hash outlives its
-- place in history, and no listed id outlives its hash by more than the TTL.
local function push_history(list, id, cap, job_prefix, status)
  redis.call('LPUSH', list, id)
  while redis.call('LLEN', list) > cap do
    local old = redis.call('RPOP', list)
    if job_status(job_prefix .. old) == status then
      redis.call('DEL', job_prefix .. old)
    end
  end
end
