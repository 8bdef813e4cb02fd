--@include lib/read-hash.lua
--@include lib/admission.lua
-- Moving parked jobs back (see lib/admission.lua), for the scripts that do it on an operator's or a
-- sweep's behalf: pause.lua's resume, unpark.lua. The admission hash marks a kind 'parking:<kind>'
-- while its parked list may hold jobs: set when the kind is paused or limited and kept until the
-- list is empty and nothing holds the kind back, so that stats and lists count those jobs
-- whoever moves them, and sweeps finish a move whose caller died. Call load_admission() first.

-- What holds `kind` back in admission hash `admission_key`: 'paused', 'limited' (a rate, a cap or a
-- pushback: the claims move its parked jobs back as room opens), or nil when nothing does.
local function kind_hold(admission_key, kind)
  local f = redis.call('HMGET', admission_key, 'paused_kind:' .. kind, 'rate_kind:' .. kind, 'cap_kind:' .. kind, 'limited_until:' .. kind)
  if f[1] then return 'paused' end
  if f[2] or f[3] or f[4] then return 'limited' end
  return nil
end

-- Moves up to `batch` of `kind`'s parked jobs back to the claim end of their lists (they were
-- the oldest there) and returns how many are left. The kind's 'parking:<kind>' mark in admission
-- hash `admission_key` says its parked list may hold jobs: it stays while some are left (so stats
-- and lists count them, and sweeps finish the move whoever started it), and goes once none is
-- and nothing holds the kind back. An id whose job is no longer pending is dropped.
local function unpark_jobs(prefix, job_prefix, pending, admission_key, kind, batch)
  local parked = parked_list(prefix, kind)
  if batch > 0 then
    local ids = redis.call('LRANGE', parked, 0, batch - 1)
    -- Newest first: each batch's oldest ends up rightmost, and each later (older) batch beyond it.
    for _, id in ipairs(ids) do
      local key = job_prefix .. id
      local f = read_hash(key, 'status', 'priority', 'group')
      if f and (f[1] == 'pending' or not f[1]) and redis.call('EXISTS', key) == 1 then
        push_by_priority(prefix, pending, id, f[2], true, f[3])
      end
    end
    if #ids > 0 then redis.call('LTRIM', parked, #ids, -1) end
  end
  local left = redis.call('LLEN', parked)
  if left > 0 then
    redis.call('HSET', admission_key, 'parking:' .. kind, '1')
  elseif not kind_hold(admission_key, kind) then
    redis.call('HDEL', admission_key, 'parking:' .. kind)
  end
  return left
end
