--@include lib/admission.lua
--@include lib/limit-scopes.lua
--@lazy: loaded by a claim that finds limits or groups in use.
-- Rate limits, concurrency caps, a handler's pushback and groups, enforced by the claim (see
-- lib/claim-jobs.lua). Their settings are fields of the admission hash, read by the claim's one HGETALL:
--   rate = 'max/windowMs'           at most max starts in any sliding window of windowMs (queue);
--                                   'max/windowMs/burst': spread evenly (see lib/limit-scopes.lua)
--   cap = 'n'                       at most n jobs of the queue running at once
--   rate_kind:<k> = 'max/windowMs'  the same for kind k;  cap_kind:<k> = 'n': at most n of k running
--   limited_until:<k> = ms          a handler said the service behind kind k pushed back
--   group_rate, group_cap           the same per group;  groups = '1' while grouped jobs may wait
-- The keys they use, built from the queue's key prefix (c.prefix) by lib/admission.lua's builders:
--   queue_rate, kind_rate, group_rate  sorted sets: start times of the window (member: claim
--     token), trimmed by each look and expiring a window after the last start
--   queue_spread, kind_spread, group_spread  strings: a spread limit's arrival time
--   queue_running, kind_running, group_running  sorted sets: id scored by lease deadline, in step
--     with the lease index; an expired lease no longer counts, whatever became of its worker
-- A job that holds a running slot says so in its hash ('slots': JSON {q = true, k = kind,
-- g = group}), so that complete, fail, release, extend and reclaim keep the running sets in step.
-- A job of cost n (its hash's 'cost', absent: 1) takes n of each rate limit it falls under.
-- A kind that cannot start now has the jobs its claims meet parked (parked_list, as a paused
-- kind's) and moved back by the first claim that finds room again. The queue's own limits hold
-- back every job: one they have no room for ends the claim where it stands, first in line still,
-- and the claim answers until when; its workers wait on the resume list, which a freed slot of
-- the queue's cap pushes onto (see lib/free-slots.lua).

-- Groups inspected per claim at most: a claim's cost does not grow with the number of groups.
local GROUP_BUDGET = 32

-- Reads one admission-hash field into `lim` (made on first use); returns lim (nil: no limit yet).
local function read_limit(lim, field, value)
  local name, kind = string.match(field, '^([%a_]+):(.*)$')
  name = name or field
  if name ~= 'rate' and name ~= 'cap' and name ~= 'group_rate' and name ~= 'group_cap' and name ~= 'groups'
    and name ~= 'rate_kind' and name ~= 'cap_kind' and name ~= 'limited_until' then
    return lim
  end
  lim = lim or { kinds = {} }
  if field == 'rate' then lim.rate = parse_rate(value)
  elseif field == 'cap' then lim.cap = tonumber(value)
  elseif field == 'group_rate' then lim.group_rate = parse_rate(value)
  elseif field == 'group_cap' then lim.group_cap = tonumber(value)
  elseif field == 'groups' then lim.groups = true
  elseif kind then
    local k = lim.kinds[kind] or {}
    lim.kinds[kind] = k
    if name == 'rate_kind' then k.rate = parse_rate(value)
    elseif name == 'cap_kind' then k.cap = tonumber(value)
    else k.until_ms = tonumber(value) end
  end
  return lim
end

-- One limit's scope in this claim (see lib/limit-scopes.lua), looked up once.
local function scope(c, sort, key, limit, slot)
  local s = c.scopes[key]
  if not s then
    s = new_scope(c, sort, key, limit, slot)
    c.scopes[key] = s
    c.scope_list[#c.scope_list + 1] = s
  end
  return s
end

-- A rate limit's scope: its sliding window at `window_key`, or, spread, its arrival time at `spread_key`.
local function rate_scope(c, window_key, spread_key, rate)
  if rate[3] then return scope(c, 'spread', spread_key, rate) end
  return scope(c, 'window', window_key, rate)
end

local function note_hint(c, at)
  if not c.hint or at < c.hint then c.hint = at end
end

-- The scopes of the queue's own limits (every job falls under them).
local function queue_scopes(c, lim)
  if not c.queue_scopes then
    local list = {}
    if lim.rate then list[#list + 1] = rate_scope(c, queue_rate(c.prefix), queue_spread(c.prefix), lim.rate) end
    if lim.cap then list[#list + 1] = scope(c, 'cap', queue_running(c.prefix), lim.cap, 'q') end
    c.queue_scopes = list
  end
  return c.queue_scopes
end

-- The scopes a job of `kind` in `group` must find room in besides the queue's.
local function job_scopes(c, lim, kind, group)
  local list = {}
  local k = kind and lim.kinds[kind]
  if k then
    if k.rate then list[#list + 1] = rate_scope(c, kind_rate(c.prefix, kind), kind_spread(c.prefix, kind), k.rate) end
    if k.cap then list[#list + 1] = scope(c, 'cap', kind_running(c.prefix, kind), k.cap, 'k') end
  end
  if group then
    if lim.group_rate then list[#list + 1] = rate_scope(c, group_rate(c.prefix, group), group_spread(c.prefix, group), lim.group_rate) end
    if lim.group_cap then list[#list + 1] = scope(c, 'cap', group_running(c.prefix, group), lim.group_cap, 'g') end
  end
  return list
end

-- Room in the scopes of `list` for starts of `cost`: the fewest starts of cost 1 one of them
-- has room for (0 where one of `cost` does not fit), at most `room`; and, when that is 0, the
-- latest time a full one opens (from `open_at`).
local function room_in(c, list, cost, room, open_at)
  for _, s in ipairs(list) do
    local r = scope_room(c, s)
    if r > 0 and cost > 1 and not scope_fits(c, s, cost) then r = 0 end
    if r < room then room = r end
    if r <= 0 then open_at = math.max(open_at, scope_opens(c, s, cost)) end
  end
  return room, open_at
end

-- Room for a start of `kind` and `cost` (not counting the queue or the group), or 0 and when
-- it may open.
local function kind_room(c, lim, kind, cost)
  local k = kind and lim.kinds[kind]
  if not k then return 1000000, c.now end
  if k.until_ms and k.until_ms > c.now then return 0, k.until_ms end
  return room_in(c, job_scopes(c, lim, kind, nil), cost, 1000000, c.now)
end

-- Whether a job of `group` and `cost` may start now, else when its group may have room.
local function group_ready(c, lim, group, cost)
  local room, open_at = room_in(c, job_scopes(c, lim, nil, group), cost, 1000000, c.now)
  return room > 0, open_at
end

-- Moves the oldest of kind `kind`'s parked jobs (at most `most`) back to the claim end of their
-- lists, as many as its limits have room for, taken in order (a job that costs more than the room
-- left stops it: the cheaper ones behind it do not overtake it). Returns true when its limits
-- stopped it with jobs left (the hint then says when the next may start).
local function unpark_kind(c, lim, kind, parked, most)
  local k = lim.kinds[kind]
  if k.until_ms and k.until_ms > c.now then
    note_hint(c, k.until_ms)
    return true
  end
  local trials = {}
  for _, s in ipairs(job_scopes(c, lim, kind, nil)) do trials[#trials + 1] = scope_trial(s) end
  local ids = redis.call('LRANGE', parked, -most, -1)
  local moving, stopped = {}, false
  for i = #ids, 1, -1 do
    local f = read_hash(c.job_prefix .. ids[i], 'priority', 'group', 'cost')
    local cost = job_cost(f and f[3])
    local room, open_at = room_in(c, trials, cost, 1, c.now)
    if room <= 0 then
      note_hint(c, open_at)
      stopped = true
      break
    end
    for _, t in ipairs(trials) do scope_take(c, t, cost, '', ids[i], '0') end
    moving[#moving + 1] = { ids[i], f }
    c.unparked[ids[i]] = true
  end
  -- Newest first onto the claim end, so the oldest is the next claimed.
  for i = #moving, 1, -1 do
    local f = moving[i][2]
    push_pending(c.prefix, c.pending, moving[i][1], f and f[1], true, f and f[2])
  end
  if #moving > 0 then redis.call('LTRIM', parked, 0, -#moving - 1) end
  -- Stopped by `most` alone (what this claim asked for), with more parked: the next claim need
  -- not wait.
  if #moving == most and redis.call('LLEN', parked) > 0 then note_hint(c, c.now) end
  return stopped
end

-- The queue's own limits have no room: the claim takes nothing more and answers until when,
-- as minus that time, at most CLAIM_LIMITED_MAX, in out[2] (see lib/claim-jobs.lua). Its
-- workers then wait on the resume list: a token left there (by a resume, or by a freed slot
-- another claim took) would end their waits at once, and no slot or start is free now.
local function queue_limited(c, out, at)
  out[2] = math.min(-at, CLAIM_LIMITED_MAX)
  redis.call('DEL', resume_list(c.prefix))
end

-- Before the claim: the queue's own limits cap how many may start (none: see queue_limited);
-- kinds with room again get their parked jobs back onto their lists (at the claim end: they
-- were the oldest), as many as may start; pushbacks over are cleared. Returns how many jobs
-- the claim may start.
local function limits_before(c, admission, wanted, out)
  local lim = admission.lim
  c.scopes, c.scope_list, c.hint, c.queue_scopes, c.stop_at, c.turn_back, c.blocked, c.unparked = {}, {}, nil, nil, nil, nil, {}, {}
  local room, open_at = room_in(c, queue_scopes(c, lim), 1, wanted, c.now)
  if room <= 0 then
    queue_limited(c, out, open_at)
    return 0
  end
  wanted = room
  for kind, k in pairs(lim.kinds) do
    local parked = parked_list(c.prefix, kind)
    local waiting = redis.call('LLEN', parked)
    -- A pushback that is over leaves once its parked jobs are all on their way back (until then
    -- it is what brings claims here to move them), unless another limit or a pause does that.
    local paused = admission.kinds and admission.kinds[kind]
    if k.until_ms and k.until_ms <= c.now and (k.rate or k.cap or paused or waiting <= wanted) then
      redis.call('HDEL', admission.key, 'limited_until:' .. kind)
    end
    if not paused and waiting > 0 and unpark_kind(c, lim, kind, parked, math.min(wanted, waiting)) then
      -- The kind's oldest parked job has no room: the jobs of the kind the claim meets (but those
      -- moved back, c.unparked) wait behind it, however little they cost.
      c.blocked[kind] = true
    end
  end
  return wanted
end

-- For a job of `cost` the claim is about to start: true when it was set aside instead (its
-- kind has no room: parked; it carries a group with no room: filed at the head of its group's
-- list); 'back' when it stays first in its list, which the caller puts it back at the claim
-- end of and claims no more from: the queue's own limits have no room for it (c.stop_at: until
-- when; the claim ends), or its group's, in the group's turn (c.turn_back: until when).
local function limits_hold(c, lim, id, kind, group, cost)
  local qroom, qopen_at = room_in(c, queue_scopes(c, lim), cost, 1, c.now)
  if qroom <= 0 then
    c.stop_at = qopen_at
    return 'back'
  end
  local room, open_at = kind_room(c, lim, kind, cost)
  if kind and c.blocked[kind] and not c.unparked[id] then room = 0 end
  if room <= 0 then
    -- Parked: and the jobs of its kind the claim meets after it wait behind it.
    if kind and lim.kinds[kind] then c.blocked[kind] = true end
    redis.call('LPUSH', parked_list(c.prefix, kind), id)
    note_hint(c, open_at)
    -- A group's carrier parked: the group's turn goes back to the turns between groups (when
    -- the carrier comes back, it is filed behind its group's jobs or carries the group again).
    if group and group ~= c.group_turn then carrier_left(c.prefix, group, c.now) end
    return true
  end
  if group then
    local ready, at = group_ready(c, lim, group, cost)
    if not ready and group == c.group_turn then
      c.turn_back = at
      note_hint(c, at)
      return 'back'
    elseif not ready then
      redis.call('RPUSH', group_list(c.prefix, group), id)
      redis.call('ZADD', groups_set(c.prefix), at, group)
      note_hint(c, at)
      return true
    end
  end
  return false
end

-- A job of `cost` the claim starts: counted in every limit it falls under (written after the
-- claim, one call or two per limit), its slots noted on its hash.
local function limits_started(c, lim, id, key, token, deadline_s, kind, group, cost)
  local slots = nil
  for pass = 1, 2 do
    for _, s in ipairs(pass == 1 and queue_scopes(c, lim) or job_scopes(c, lim, kind, group)) do
      scope_take(c, s, cost, token, id, deadline_s)
      if s.slot then
        slots = slots or {}
        if s.slot == 'q' then slots.q = true elseif s.slot == 'k' then slots.k = kind else slots.g = group end
      end
    end
  end
  if slots then redis.call('HSET', key, 'slots', cjson.encode(slots)) end
  -- A group's carrier started: its group's next job (if any) has its turn now.
  if group and group ~= c.group_turn then carrier_left(c.prefix, group, c.now) end
end

-- Takes turns between the groups whose turn has come (the earliest first), one job each per
-- round, inspecting at most GROUP_BUDGET groups; `claim_one(list)` claims one job from a list
-- and says whether it ran dry. A group without room gets its turn back when it may have some.
local function claim_groups(c, lim, wanted, claim_one)
  local ring = groups_set(c.prefix)
  local budget = GROUP_BUDGET
  while c.claimed < wanted and budget > 0 and not c.stop_at do
    local turn = redis.call('ZRANGE', ring, '-inf', c.now, 'BYSCORE', 'LIMIT', 0, math.min(budget, wanted - c.claimed))
    if #turn == 0 then break end
    local served = 0
    for _, group in ipairs(turn) do
      budget = budget - 1
      local ready, at = group_ready(c, lim, group, 1)
      if not ready then
        redis.call('ZADD', ring, at, group)
        note_hint(c, at)
      else
        local before = c.claimed
        local list = group_list(c.prefix, group)
        c.group_turn = group
        local dry = claim_one(list)
        c.group_turn = nil
        if c.turn_back then
          -- Its next job costs more than the group has room for: its turn comes back then.
          redis.call('ZADD', ring, c.turn_back, group)
          c.turn_back = nil
        elseif dry or redis.call('LLEN', list) == 0 then
          redis.call('ZREM', ring, group)
        else
          redis.call('ZADD', ring, c.now, group)
          if c.claimed > before then served = served + 1 end
        end
      end
      if c.claimed >= wanted then break end
    end
    if served == 0 then break end
  end
  if c.claimed < wanted then
    local head = redis.call('ZRANGE', ring, 0, 0, 'WITHSCORES')
    if head[2] then note_hint(c, math.max(c.now, tonumber(head[2]))) end
  end
end

-- After the claim: writes the starts and slots of every limit, and folds the earliest time a
-- held job may start into out[2] (the time the worker wakes to claim again, as for a delayed
-- job); or, when the queue's own limits ended the claim, says until when (see queue_limited).
local function limits_after(c, out)
  for _, s in ipairs(c.scope_list) do scope_write(c, s) end
  -- This claim filled the queue's cap (say, the slot its own completion freed): a token left
  -- there would only wake workers to find it full.
  local cap = c.scopes[queue_running(c.prefix)]
  if cap and cap.added > 0 and scope_room(c, cap) <= 0 then redis.call('DEL', resume_list(c.prefix)) end
  if c.stop_at then
    queue_limited(c, out, c.stop_at)
  elseif c.hint and out[2] ~= CLAIM_PAUSED and (tonumber(out[2]) < 0 or c.hint < tonumber(out[2])) then
    out[2] = c.hint
  end
end
