--@include lib/read-hash.lua
-- Pushes ids onto a capped history list (newest at the head) and deletes the hash of every id
-- trimmed off the far end, when that hash is still in the list's state: no hash outlives its
-- place in history, and no listed id outlives its hash by more than the TTL.
local function push_history_many(list, ids, cap, job_prefix, status)
  if #ids == 0 then return end
  local length = redis.call('LPUSH', list, unpack(ids))
  if length <= cap then return end
  local trimmed = redis.call('RPOP', list, length - cap)
  local gone = {}
  for _, old in ipairs(trimmed) do
    local f = read_hash(job_prefix .. old, 'status')
    if f and f[1] == status then gone[#gone + 1] = job_prefix .. old end
  end
  if #gone > 0 then redis.call('DEL', unpack(gone)) end
end

local function push_history(list, id, cap, job_prefix, status)
  push_history_many(list, { id }, cap, job_prefix, status)
end
