--@include lib/admission.lua
--@lazy: loaded by a claim that finds limits or groups in use.
-- Rate limits, concurrency caps, a handler's pushback and groups, enforced by the claim (see
-- lib/claim-jobs.lua). Their settings are fields of the admission hash, read by the claim's one HGETALL:
--   rate = 'max/windowMs'           at most max starts in any sliding window of windowMs (queue)
--   rate_kind:<k> = 'max/windowMs'  the same for kind k;  cap_kind:<k> = 'n': at most n of k running
--   limited_until:<k> = ms          a handler said the service behind kind k pushed back
--   group_rate, group_cap           the same per group;  groups = '1' while grouped jobs may wait
-- The keys they use, built from the queue's key prefix (c.prefix) by lib/admission.lua's builders:
--   queue_rate, kind_rate, group_rate  sorted sets: start times of the window (member: claim
--     token), trimmed by each look and expiring a window after the last start
--   kind_running, group_running  sorted sets: id scored by lease deadline, in step with the
--     lease index; an expired lease no longer counts, whatever became of its worker
-- A job that holds a running slot says so in its hash ('slots': JSON {k = kind, g = group}), so
-- that complete, fail, release, extend and reclaim keep the running sets in step.
-- A kind that cannot start now has the jobs its claims meet parked (parked_list, as a paused
-- kind's) and moved back by the first claim that finds room again.

-- Groups inspected per claim at most: a claim's cost does not grow with the number of groups.
local GROUP_BUDGET = 32

local function parse_rate(text)
  local max, window = string.match(text or '', '^(%d+)/(%d+)$')
  if not max then return nil end
  return { tonumber(max), tonumber(window) }
end

-- Reads one admission-hash field into `lim` (made on first use); returns lim (nil: no limit yet).
local function read_limit(lim, field, value)
  local name, kind = string.match(field, '^([%a_]+):(.*)$')
  name = name or field
  if name ~= 'rate' and name ~= 'group_rate' and name ~= 'group_cap' and name ~= 'groups'
    and name ~= 'rate_kind' and name ~= 'cap_kind' and name ~= 'limited_until' then
    return lim
  end
  lim = lim or { kinds = {} }
  if field == 'rate' then lim.rate = parse_rate(value)
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

-- Room left under a sliding-window limit { max, window } at `key`, and when a start leaves the
-- window if there is none (the window holds the starts of (now - window, now]).
local function rate_room(key, rate, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - rate[2])
  local used = redis.call('ZCARD', key)
  if used < rate[1] then return rate[1] - used, now end
  local at = redis.call('ZRANGE', key, used - rate[1], used - rate[1], 'WITHSCORES')
  return 0, tonumber(at[2]) + rate[2]
end

-- Slots left under a cap at running set `key` (live leases only), and when the first live lease
-- ends if there is none.
local function cap_room(key, cap, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local live = redis.call('ZCARD', key)
  if live < cap then return cap - live, now end
  local at = redis.call('ZRANGE', key, live - cap, live - cap, 'WITHSCORES')
  return 0, tonumber(at[2])
end

-- One limit's state in this claim, looked up once: { room, opens at, key, limit, is a rate,
-- slot: for a cap, the field of a job's 'slots' it fills ('k' kind, 'g' group) }.
local function scope(c, key, limit, is_rate, slot)
  local s = c.scopes[key]
  if not s then
    local room, open_at
    if is_rate then room, open_at = rate_room(key, limit, c.now) else room, open_at = cap_room(key, limit, c.now) end
    s = { room = room, open_at = open_at, key = key, limit = limit, is_rate = is_rate, slot = slot, adds = {} }
    c.scopes[key] = s
    c.scope_list[#c.scope_list + 1] = s
  end
  return s
end

-- When a scope used up by this claim opens again (counting this claim's starts).
local function scope_opens(c, s)
  if s.room > 0 then return c.now end
  if s.open_at > c.now then return s.open_at end
  if s.is_rate then
    -- This claim's starts are the newest of the window: the window opens when the oldest of the
    -- last `max` starts (this claim's included) leaves it.
    local before = s.limit[1] - #s.adds / 2
    if before <= 0 then return c.now + s.limit[2] end
    local used = redis.call('ZCARD', s.key)
    local at = redis.call('ZRANGE', s.key, used - before, used - before, 'WITHSCORES')
    return (tonumber(at[2]) or c.now) + s.limit[2]
  end
  -- A cap this claim filled: it opens when the first live lease ends, this claim's included.
  local head = redis.call('ZRANGE', s.key, 0, 0, 'WITHSCORES')
  local at = tonumber(head[2])
  for i = 1, #s.adds, 2 do
    local deadline = tonumber(s.adds[i])
    if not at or deadline < at then at = deadline end
  end
  return at or c.now + 1
end

local function note_hint(c, at)
  if not c.hint or at < c.hint then c.hint = at end
end

-- The scopes a job of `kind` in `group` must find room in (scopes[] of this claim).
local function job_scopes(c, lim, kind, group)
  local list = {}
  local k = kind and lim.kinds[kind]
  if k then
    if k.rate then list[#list + 1] = scope(c, kind_rate(c.prefix, kind), k.rate, true) end
    if k.cap then list[#list + 1] = scope(c, kind_running(c.prefix, kind), k.cap, false, 'k') end
  end
  if group then
    if lim.group_rate then list[#list + 1] = scope(c, group_rate(c.prefix, group), lim.group_rate, true) end
    if lim.group_cap then list[#list + 1] = scope(c, group_running(c.prefix, group), lim.group_cap, false, 'g') end
  end
  return list
end

-- Room for one more start of `kind` (not counting the group), or false and when it may open.
local function kind_room(c, lim, kind)
  local k = kind and lim.kinds[kind]
  if not k then return 1000000, c.now end
  local room, open_at = 1000000, c.now
  if k.until_ms then
    if k.until_ms > c.now then return 0, k.until_ms end
  end
  for _, s in ipairs(job_scopes(c, lim, kind, nil)) do
    if s.room < room then room = s.room end
    if s.room <= 0 then open_at = math.max(open_at, scope_opens(c, s)) end
  end
  return room, open_at
end

-- Whether a job of `group` may start now, else when its group may have room.
local function group_ready(c, lim, group)
  local open_at, ready = c.now, true
  for _, s in ipairs(job_scopes(c, lim, nil, group)) do
    if s.room <= 0 then
      ready = false
      open_at = math.max(open_at, scope_opens(c, s))
    end
  end
  return ready, open_at
end

-- Before the claim: the queue's own rate limit caps how many may start (0: out[2] then says
-- until when, as minus that time, at most CLAIM_LIMITED_MAX: see lib/claim-jobs.lua); kinds with room again get their parked jobs back onto their
-- lists (at the claim end: they were the oldest), as many as may start; pushbacks over are
-- cleared. Returns how many jobs the claim may start.
local function limits_before(c, admission, wanted, out)
  local lim = admission.lim
  c.scopes, c.scope_list, c.hint = {}, {}, nil
  if lim.rate then
    local s = scope(c, queue_rate(c.prefix), lim.rate, true)
    if s.room <= 0 then
      out[2] = math.min(-s.open_at, CLAIM_LIMITED_MAX)
      return 0
    end
    wanted = math.min(wanted, s.room)
  end
  for kind, k in pairs(lim.kinds) do
    local parked = parked_list(c.prefix, kind)
    local waiting = redis.call('LLEN', parked)
    -- A pushback that is over leaves once its parked jobs are all on their way back (until then
    -- it is what brings claims here to move them), unless another limit or a pause does that.
    local paused = admission.kinds and admission.kinds[kind]
    if k.until_ms and k.until_ms <= c.now and (k.rate or k.cap or paused or waiting <= wanted) then
      redis.call('HDEL', admission.key, 'limited_until:' .. kind)
    end
    if not paused then
      if waiting > 0 then
        local room, open_at = kind_room(c, lim, kind)
        if room <= 0 then
          note_hint(c, open_at)
        else
          local ids = redis.call('LRANGE', parked, -math.min(room, wanted, waiting), -1)
          for i = 1, #ids do
            local f = read_hash(c.job_prefix .. ids[i], 'priority', 'group')
            push_pending(c.prefix, c.pending, ids[i], f and f[1], true, f and f[2])
          end
          redis.call('LTRIM', parked, 0, -#ids - 1)
          -- More may start now than this claim asked for: the next claim need not wait.
          if waiting > #ids and room > #ids then note_hint(c, c.now) end
        end
      end
    end
  end
  return wanted
end

-- For a job the claim is about to start: true when it was set aside instead (its kind has no
-- room: parked; it carries a group with no room: filed at the head of its group's list).
local function limits_hold(c, lim, id, kind, group)
  local room, open_at = kind_room(c, lim, kind)
  if room <= 0 then
    redis.call('LPUSH', parked_list(c.prefix, kind), id)
    note_hint(c, open_at)
    -- A group's carrier parked: the group's turn goes back to the turns between groups (when
    -- the carrier comes back, it is filed behind its group's jobs or carries the group again).
    if group and group ~= c.group_turn then carrier_left(c.prefix, group, c.now) end
    return true
  end
  if group and group ~= c.group_turn then
    local ready, at = group_ready(c, lim, group)
    if not ready then
      redis.call('RPUSH', group_list(c.prefix, group), id)
      redis.call('ZADD', groups_set(c.prefix), at, group)
      note_hint(c, at)
      return true
    end
  end
  return false
end

-- A job the claim starts: counted in every limit it falls under (written after the claim, one
-- call per limit), its slots noted on its hash.
local function limits_started(c, lim, id, key, token, deadline_s, kind, group)
  if lim.rate then
    local s = c.scopes[queue_rate(c.prefix)]
    s.room = s.room - 1
    s.adds[#s.adds + 1] = int_text(c.now)
    s.adds[#s.adds + 1] = token
  end
  local slots = nil
  for _, s in ipairs(job_scopes(c, lim, kind, group)) do
    s.room = s.room - 1
    if s.is_rate then
      s.adds[#s.adds + 1] = int_text(c.now)
      s.adds[#s.adds + 1] = token
    else
      s.adds[#s.adds + 1] = deadline_s
      s.adds[#s.adds + 1] = id
      slots = slots or {}
      slots[s.slot] = s.slot == 'k' and kind or group
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
  while c.claimed < wanted and budget > 0 do
    local turn = redis.call('ZRANGE', ring, '-inf', c.now, 'BYSCORE', 'LIMIT', 0, math.min(budget, wanted - c.claimed))
    if #turn == 0 then break end
    local served = 0
    for _, group in ipairs(turn) do
      budget = budget - 1
      local ready, at = group_ready(c, lim, group)
      if not ready then
        redis.call('ZADD', ring, at, group)
        note_hint(c, at)
      else
        local before = c.claimed
        local list = group_list(c.prefix, group)
        c.group_turn = group
        local dry = claim_one(list)
        c.group_turn = nil
        if dry or redis.call('LLEN', list) == 0 then
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

-- After the claim: writes the starts and slots of every limit (one ZADD each, and the rate
-- windows' expiry), and folds the earliest time a held job may start into out[2] (the time the
-- worker wakes to claim again, as for a delayed job).
local function limits_after(c, out)
  for _, s in ipairs(c.scope_list) do
    if #s.adds > 0 then
      redis.call('ZADD', s.key, unpack(s.adds))
      if s.is_rate then redis.call('PEXPIRE', s.key, s.limit[2]) end
    end
  end
  if c.hint and out[2] ~= CLAIM_PAUSED and (tonumber(out[2]) < 0 or c.hint < tonumber(out[2])) then out[2] = c.hint end
end
