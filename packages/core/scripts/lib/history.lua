--@include lib/read-hash.lua
--@include lib/job-trail.lua
--@include lib/dedupe.lua
-- Pushes ids onto a capped history list (newest at the head) and deletes the hash of every id
-- trimmed off the far end, when that hash is still in the list's state: no hash outlives its
-- place in history, and no listed id outlives its hash by more than the TTL. A negative cap
-- keeps every id. With `stats`, each trimmed id whose job was lost by the trim (its hash in the
-- list's state, or already expired) is counted in `<status>_dropped_total` there. A deleted hash
-- takes its trail (lib/job-trail.lua) and the dedupe key it kept (lib/dedupe.lua), named from the
-- queue's `prefix`.
local function push_history_many(list, ids, cap, job_prefix, status, stats, prefix)
  if #ids == 0 then return end
  local length = redis.call('LPUSH', list, unpack(ids))
  if cap < 0 or length <= cap then return end
  local trimmed = redis.call('RPOP', list, length - cap)
  local gone, lost = {}, 0
  for _, old in ipairs(trimmed) do
    local key = job_prefix .. old
    if stats then
      -- As lib/job-status.lua: no hash (or a key of another type) means the job is gone.
      local f = read_hash(key, 'status', 'id', 'payload', 'trail')
      if f and f[1] == status then
        gone[#gone + 1] = key
        if f[4] then load_job_trail(); trail_add_keys(gone, key); load_dedupe(); dedupe_trimmed(prefix, key, old, status) end
      end
      if not (f and (f[1] or f[2] or f[3])) or f[1] == status then lost = lost + 1 end
    else
      local f = read_hash(key, 'status', 'trail')
      if f and f[1] == status then
        gone[#gone + 1] = key
        if f[2] then load_job_trail(); trail_add_keys(gone, key); load_dedupe(); dedupe_trimmed(prefix, key, old, status) end
      end
    end
  end
  if #gone > 0 then redis.call('DEL', unpack(gone)) end
  if stats and lost > 0 then redis.call('HINCRBY', stats, status .. '_dropped_total', lost) end
end

local function push_history(list, id, cap, job_prefix, status, stats, prefix)
  push_history_many(list, { id }, cap, job_prefix, status, stats, prefix)
end
