--@include lib/now.lua
--@include lib/read-hash.lua
--@include lib/admission.lua
--@include lib/push-pending.lua
--@lazy: loaded where a job's hash names slots.
-- Gives back the running slots a job held (its hash's 'slots', see lib/limits.lua) when its
-- attempt ends (complete, fail, release, reclaim, a handler's pushback), and hands each freed
-- slot on: the oldest parked job of the kind (unless the kind is paused or pushed back) and the
-- next job of the group go back to the claim end of their lists, where that push wakes a
-- waiting worker; a slot of the queue's own cap, freed from a full cap, pushes a token onto the
-- resume list, where its waiting workers block. A job without slots costs nothing here: callers
-- read 'slots' with fields they read anyway. ctx: { prefix (the queue's key prefix, see lib/admission.lua), job_prefix, pending }.
-- `part`: 'k' to give back the kind's and the queue's slots, 'g' only the group's; nil for all. A job
-- that goes back to waiting (release, reclaim, pushback) gives its group slot back only once it
-- is in its group's list again, so the group's turn comes back to it and the group keeps its order.
local function free_slots(ctx, id, slots_text, part)
  if not slots_text then return end
  local ok, slots = pcall(cjson.decode, slots_text)
  if not ok or type(slots) ~= 'table' then return end
  local prefix, job_prefix, pending = ctx.prefix, ctx.job_prefix, ctx.pending
  if slots.q == true and part ~= 'g' then
    -- The queue's cap: its workers wait on the resume list while it is full (see lib/limits.lua),
    -- so a slot freed from a full cap wakes them (not while the queue is paused: its workers wait
    -- there for the resume, which would end every wait at once).
    local running = queue_running(prefix)
    redis.call('ZREM', running, id)
    local held = redis.call('HMGET', prefix .. 'flow', 'cap', 'paused')
    local cap = tonumber(held[1])
    if cap and not held[2] then
      -- Live leases only, trimmed as a claim trims them (the commands a queue's ACL user has).
      redis.call('ZREMRANGEBYSCORE', running, '-inf', now_ms())
      if redis.call('ZCARD', running) + 1 >= cap and redis.call('LLEN', resume_list(prefix)) == 0 then
        redis.call('LPUSH', resume_list(prefix), '1')
      end
    end
  end
  if type(slots.k) == 'string' and part ~= 'g' then
    local kind = slots.k
    redis.call('ZREM', kind_running(prefix, kind), id)
    local held = redis.call('HMGET', prefix .. 'flow', 'paused_kind:' .. kind, 'limited_until:' .. kind)
    if not held[1] and (tonumber(held[2]) or 0) <= now_ms() then
      local parked = parked_list(prefix, kind)
      local next_id = redis.call('LINDEX', parked, -1)
      if next_id then
        redis.call('RPOP', parked)
        local f = read_hash(job_prefix .. next_id, 'priority', 'group')
        push_pending(prefix, pending, next_id, f and f[1], true, f and f[2])
      end
    end
  end
  if type(slots.g) == 'string' and part ~= 'k' then
    local group = slots.g
    redis.call('ZREM', group_running(prefix, group), id)
    -- The group's next job becomes its carrier: onto pending, holding the group's turn.
    local next_id = redis.call('LMOVE', group_list(prefix, group), pending, 'RIGHT', 'RIGHT')
    if next_id then
      redis.call('ZADD', groups_set(prefix), now_ms() + CARRIER_TURN_MS, group)
    end
  end
end
