--@include lib/read-hash.lua
-- Pushes an id onto a capped history list (newest at the head) and deletes the hash of every id
-- trimmed off the far end, when that hash is still in the list's state: no hash outlives its
-- place in history, and no listed id outlives its hash by more than the TTL.
local function push_history(list, id, cap, job_prefix, status)
  local length = redis.call('LPUSH', list, id)
  while length > cap do
    local old = redis.call('RPOP', list)
    length = length - 1
    local f = read_hash(job_prefix .. old, 'status')
    if f and f[1] == status then
      redis.call('DEL', job_prefix .. old)
    end
  end
end
