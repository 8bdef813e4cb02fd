--@include lib/admission.lua
--@lazy: loaded with lib/limits.lua.
-- One limit as a claim sees it (a scope): looked up once per claim, its starts counted as the
-- claim goes, written once after it. Three sorts:
--   window  a sliding-window rate limit { max, windowMs } at a sorted set of start times (member:
--           claim token; a job of cost n adds n members): at most max in any (now - window, now]
--   spread  a spread rate limit { max, windowMs, burst } (GCRA): one value at a string key, the
--           theoretical arrival time (TAT, whole microseconds, Redis clock). A start of cost n
--           may come when max(TAT, now) + min(n, burst) * T - now <= burst * T, T being
--           spread_interval_us (lib/admission.lua), and moves TAT to max(TAT, now) + n * T: starts
--           come one per T, up to burst at once after a pause, never more than max in a window
--   cap     a concurrency cap n at a running set (id scored by lease deadline): live leases only
-- A cost above a rate limit's max counts as max (the job takes a whole window); above a spread
-- limit's burst, the job waits for a full burst and then takes all it costs. Caps count jobs.
-- A scope: { sort, key, limit, slot (a cap's field in a job's 'slots': 'q', 'k' or 'g'), adds
-- (ZADD arguments of this claim's starts), added (tokens or slots this claim took) } and, by
-- sort, used (window), live (cap), tat, tat0, t (spread, µs).

-- A job's cost for the rate limits: its hash's 'cost' (absent or malformed: 1).
local function job_cost(text)
  local cost = tonumber(text)
  if not cost or cost < 1 then return 1 end
  return math.floor(cost)
end

local function new_scope(c, sort, key, limit, slot)
  local s = { sort = sort, key = key, limit = limit, slot = slot, adds = {}, added = 0 }
  if sort == 'window' then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', c.now - limit[2])
    s.used = redis.call('ZCARD', key)
  elseif sort == 'spread' then
    s.t = spread_interval_us(limit)
    local now_us = c.now * 1000
    -- A time beyond any this limit writes (a clock that went back): no later than a full window.
    local tat = math.min(tonumber(redis.call('GET', key)) or 0, now_us + (limit[1] + limit[3]) * s.t)
    s.tat, s.tat0 = tat, tat
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', c.now)
    s.live = redis.call('ZCARD', key)
  end
  return s
end

-- Starts of cost 1 the scope has room for now.
local function scope_room(c, s)
  if s.sort == 'window' then return s.limit[1] - s.used - s.added end
  if s.sort == 'cap' then return s.limit - s.live - s.added end
  local now_us = c.now * 1000
  return math.floor((now_us + s.limit[3] * s.t - math.max(s.tat, now_us)) / s.t)
end

-- Whether a start of `cost` fits now.
local function scope_fits(c, s, cost)
  if s.sort == 'window' then return scope_room(c, s) >= math.min(cost, s.limit[1]) end
  if s.sort == 'cap' then return scope_room(c, s) >= 1 end
  local now_us = c.now * 1000
  return math.max(s.tat, now_us) + math.min(cost, s.limit[3]) * s.t - now_us <= s.limit[3] * s.t
end

-- When a start of `cost` may fit (ms, Redis clock), counting this claim's starts.
local function scope_opens(c, s, cost)
  if scope_fits(c, s, cost) then return c.now end
  if s.sort == 'spread' then
    return math.max(c.now, math.ceil((s.tat + (math.min(cost, s.limit[3]) - s.limit[3]) * s.t) / 1000))
  end
  if s.sort == 'window' then
    -- The oldest `out` starts must leave the window (this claim's, at now, are the newest).
    local out = s.used + s.added - s.limit[1] + math.min(cost, s.limit[1])
    if out > s.used then return c.now + s.limit[2] end
    local at = redis.call('ZRANGE', s.key, out - 1, out - 1, 'WITHSCORES')
    return (tonumber(at[2]) or c.now) + s.limit[2]
  end
  -- A full cap opens when a live lease ends: the (live - cap)-th earliest, or with this claim's
  -- slots among them, the earliest of all.
  if s.added == 0 then
    local at = redis.call('ZRANGE', s.key, s.live - s.limit, s.live - s.limit, 'WITHSCORES')
    return tonumber(at[2]) or c.now + 1
  end
  local head = redis.call('ZRANGE', s.key, 0, 0, 'WITHSCORES')
  local at = tonumber(head[2])
  for i = 1, #s.adds, 2 do
    local deadline = tonumber(s.adds[i])
    if not at or deadline < at then at = deadline end
  end
  return at or c.now + 1
end

-- A start of `cost` (claim token `token`, job `id`, lease deadline `deadline_s`) in the scope.
local function scope_take(c, s, cost, token, id, deadline_s)
  if s.sort == 'cap' then
    s.added = s.added + 1
    s.adds[#s.adds + 1] = deadline_s
    s.adds[#s.adds + 1] = id
  elseif s.sort == 'window' then
    local n = math.min(cost, s.limit[1])
    s.added = s.added + n
    local now_text = int_text(c.now)
    s.adds[#s.adds + 1] = now_text
    s.adds[#s.adds + 1] = token
    for i = 2, n do
      s.adds[#s.adds + 1] = now_text
      s.adds[#s.adds + 1] = token .. ':' .. i
    end
  else
    s.added = s.added + cost
    s.tat = math.max(s.tat, c.now * 1000) + math.min(cost, s.limit[1]) * s.t
  end
end

-- A copy of scope `s` to try starts on (scope_fits, scope_take) without counting them.
local function scope_trial(s)
  return { sort = s.sort, key = s.key, limit = s.limit, slot = s.slot, adds = {}, added = s.added,
    used = s.used, live = s.live, tat = s.tat, tat0 = s.tat0, t = s.t }
end

-- After the claim: the scope's starts written (one call or two).
local function scope_write(c, s)
  if s.sort == 'spread' then
    if s.tat ~= s.tat0 then
      redis.call('SET', s.key, int_text(s.tat), 'PX', int_text(math.max(1, math.ceil(s.tat / 1000) - c.now)))
    end
  elseif #s.adds > 0 then
    -- A window's starts in batches: a few jobs of high cost make many members.
    for from = 1, #s.adds, 4000 do
      redis.call('ZADD', s.key, unpack(s.adds, from, math.min(from + 3999, #s.adds)))
    end
    if s.sort == 'window' then redis.call('PEXPIRE', s.key, s.limit[2]) end
  end
end
