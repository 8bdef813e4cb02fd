--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/events.lua
--@include lib/due-notice.lua
--@include lib/push-pending.lua
--@include lib/unlist-pending.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua
--@lazy: loaded where a job is a parent or a child.
-- Flows: a parent job waits in status waiting-children (in no list, so no claim sees it) until
-- each of its children has settled. Its hash keeps the count of unsettled children in
-- children_left, their ids in children (a JSON array) and, per child, a field "child:<id>" holding a JSON entry that starts with its
-- status: {"status":"waiting","kind":K} until it settles, then "completed" with its "result",
-- or "failed"/"cancelled" with its "error". A child's hash names its parent in parent_id. A
-- parent's on_child_failure says what a child that fails for good does: 'fail' (the parent
-- fails, and its own parent hears of that) or 'ignore' (the child counts as settled).
-- ctx: the caller's { job_prefix, stats, channel, now, log, worker } and, to start a parent,
-- { pending, delayed, prefix, wake }; to fail one, { failed, cap, ttl } (see lib/dead-letter.lua).
-- Logged (see lib/log-event.lua; log nil: off): 'child-settled' on a parent when a child's entry
-- is recorded (extra: child, status), 'children-done' when its last child settled, and
-- 'cancelled' on each child a cancelled parent takes with it.

-- The parents waiting for their children: a sorted set at the queue's prefix plus this suffix
-- (keys.ts's `waitingChildren`), scored in enqueue order (see index_waiting_parent), for listing them. A parent
-- leaves it when it starts, fails or is cancelled (here, cancel.lua, remove.lua).
local function waiting_parents(prefix)
  return prefix .. 'waiting-children'
end

-- Adds parent `id` to the waiting parents at `now` (ms), or just after the last one there when
-- that is not earlier (parents of one millisecond keep their enqueue order).
local function index_waiting_parent(prefix, id, now)
  local key = waiting_parents(prefix)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  local score = now
  if last[2] and tonumber(last[2]) >= score then score = tonumber(last[2]) + 1 end
  redis.call('ZADD', key, int_text(score), id)
end

-- The start of a waiting child's entry: an entry is settled once, however often its child runs.
local FLOW_WAITING = '{"status":"waiting",'

local function flow_waiting(entry)
  return entry and string.find(entry, FLOW_WAITING, 1, true) == 1
end

-- A child's entry in its parent: status, kind, and the result (JSON text) or the error.
local function flow_entry(status, kind, result, err)
  local entry = '{"status":"' .. status .. '","kind":' .. cjson.encode(kind or '')
  if result then return entry .. ',"result":' .. result .. '}' end
  if err then return entry .. ',"error":' .. cjson.encode(err) .. '}' end
  return entry .. '}'
end

-- A parent whose children have all settled goes to the delayed set while its run_at_ms is ahead,
-- else onto the claim end of pending: it was enqueued with its children, so it keeps its place
-- ahead of the jobs that came after its flow (as a reclaimed job does), and runs next.
local function flow_start_parent(ctx, parent_key, parent_id)
  redis.call('ZREM', waiting_parents(ctx.prefix), parent_id)
  local f = redis.call('HMGET', parent_key, 'run_at_ms', 'priority', 'group')
  local due = tonumber(f[1]) or 0
  if due > ctx.now then
    redis.call('HSET', parent_key, 'status', 'delayed')
    redis.call('ZADD', ctx.delayed, int_text(due), parent_id)
    -- A claim that expires a child has no wake channel: waiting workers see the parent when their wait ends.
    if ctx.wake then notice_due(ctx.delayed, ctx.wake, due, ctx.now) end
  else
    redis.call('HSET', parent_key, 'status', 'pending')
    push_pending(ctx.prefix, ctx.pending, parent_id, f[2], true, f[3])
  end
  log_event(ctx.log, parent_id, 'children-done', nil, ctx.worker, '')
end

-- Records that child `id` (of `kind`, parent `parent_id`) settled as `status` ('completed',
-- 'failed' or 'cancelled') with `result` JSON or error `err`. A parent still waiting counts the
-- child down, and starts when none is left; a child that failed for good under the 'fail'
-- policy fails it instead, through `dead_letter` (lib/dead-letter.lua), which carries the
-- failure up the tree. A parent that has moved on (failed, cancelled, redriven) only gets the
-- entry, for the record; a parent whose hash is gone gets nothing.
local function flow_child_settled(ctx, id, kind, parent_id, status, result, err, dead_letter)
  local parent_key = ctx.job_prefix .. parent_id
  local p = read_hash(parent_key, 'status', 'on_child_failure', 'child:' .. id)
  if not p or not p[1] then return end
  redis.call('HSET', parent_key, 'child:' .. id, flow_entry(status, kind, result, err))
  log_event(ctx.log, parent_id, 'child-settled', nil, ctx.worker, '', { 'child', id, 'status', status })
  if p[1] ~= 'waiting-children' or not flow_waiting(p[3]) then return end
  if status ~= 'completed' and p[2] ~= 'ignore' then
    redis.call('ZREM', waiting_parents(ctx.prefix), parent_id)
    dead_letter(ctx, parent_id, 'JOBS_CHILD_FAILED: child ' .. id .. ' (' .. (kind or '?') .. ') ' ..
      status .. ': ' .. (err or ''), 'JOBS_CHILD_FAILED')
    return
  end
  if redis.call('HINCRBY', parent_key, 'children_left', -1) <= 0 then
    flow_start_parent(ctx, parent_key, parent_id)
  end
end

-- Cancels the unstarted children of cancelled parent `key`, and theirs: a pending (in whichever
-- list it waits, see lib/unlist-pending.lua), delayed or waiting child is cancelled (a running one finishes; its entry is recorded then). Its entry
-- in the parent says cancelled. Returns how many it cancelled.
local function flow_cancel_children(ctx, key)
  local count = 0
  for _, child in ipairs(cjson.decode(redis.call('HGET', key, 'children') or '[]')) do
    local name = 'child:' .. child
    if flow_waiting(redis.call('HGET', key, name)) then
      local child_key = ctx.job_prefix .. child
      local status = job_status(child_key)
      local stopped = false
      if status == 'pending' then
        stopped = unlist_pending(ctx.prefix, ctx.pending, child_key, child, ctx.now) == 1
      elseif status == 'delayed' then
        stopped = redis.call('ZREM', ctx.delayed, child) == 1
      elseif status == 'waiting-children' then
        redis.call('ZREM', waiting_parents(ctx.prefix), child)
        stopped = true
      end
      if stopped then
        redis.call('HSET', child_key, 'status', 'cancelled', 'cancelled_at_ms', int_text(ctx.now))
        if ctx.cancelled_ttl > 0 then redis.call('EXPIRE', child_key, ctx.cancelled_ttl) end
        if redis.call('HGET', child_key, 'trail') then trail_keep(child_key, ctx.cancelled_ttl) end
        publish_event(ctx.channel, child, 'cancelled')
        log_event(ctx.log, child, 'cancelled', nil, ctx.worker, '')
        redis.call('HSET', key, name, flow_entry('cancelled', redis.call('HGET', child_key, 'kind'), nil,
          'its parent was cancelled'))
        count = count + 1
        if status == 'waiting-children' then count = count + flow_cancel_children(ctx, child_key) end
      end
    end
  end
  return count
end

-- After job `id` (hash `key`) was cancelled: its unstarted children are cancelled, and its
-- parent hears of it as of a child that failed for good. Returns how many children it cancelled.
local function flow_cancelled(ctx, key, id, dead_letter)
  local f = redis.call('HMGET', key, 'parent_id', 'children_left', 'kind')
  local count = 0
  if f[2] then count = flow_cancel_children(ctx, key) end
  if f[1] then flow_child_settled(ctx, id, f[3], f[1], 'cancelled', nil, 'cancelled', dead_letter) end
  return count
end
