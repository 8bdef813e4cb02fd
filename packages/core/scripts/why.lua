#!lua flags=no-writes
--[[
  why: why a job is not running (or that it is), read in one step from the job's hash and the
  queue's state: where the job waits (its list and how many jobs are ahead of it there, the
  delayed set, its parent's children), what holds it back (a pause, a rate limit, a concurrency
  cap (the queue's, its kind's, its group's) and the jobs holding its slots, a handler's pushback, its group's turn, no live worker
  for its kind in the worker registry, see lib/live-workers.lua), or how it ended.
  It changes nothing: rate windows and running sets are read as the claims would trim them.
  Work per call: one LPOS per list the job may wait in (each scanning at most WHY_SCAN_MAX ids
  from the claim end), one LLEN per priority level, and the job's limits.

  KEYS[1]  job: the job's hash
  KEYS[2]  pending: pending list
  KEYS[3]  delayed: delayed sorted set
  KEYS[4]  leases: lease index
  KEYS[5]  admission: admission hash (see lib/admission.lua)
  KEYS[6]  log: the event log stream (see lib/log-event.lua), for the worker of a running job
  ARGV[1]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[2]  id: the job's id
  ARGV[3]  registry: '1' when this queue keeps the worker registry (a plain queue, a partitioned
           queue's partition 0): a waiting job of a kind no live worker handles says so; '0': not
           looked at here
  Returns: '' when there is no such job, else a JSON object: { status, kind (absent: none),
           now (ms, Redis clock), reasons: [ { code, ...its numbers } ] }, the codes as
           commands/why.ts declares them
  Reply:   string
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/admission.lua
--@include lib/live-workers.lua

-- The lazy libraries this script may call (see tools/generate-scripts.mjs).
load_admission()
-- At most this many ids of a list are scanned (from its claim end) to find a job in it.
local WHY_SCAN_MAX = 10000 --@export
-- At most this many ids are named: the jobs holding a cap's slots, a parent's waiting children.
local WHY_IDS_MAX = 100 --@export

local job_key, prefix, id = KEYS[1], ARGV[1], ARGV[2]
local status = job_status(job_key)
if not status then return '' end
local now = now_ms()
local f = redis.call('HMGET', job_key, 'kind', 'payload', 'priority', 'group', 'attempts', 'expires_at_ms',
  'completed_at_ms', 'failed_at_ms', 'cancelled_at_ms', 'last_error', 'claimed_at_ms', 'first_claimed_at_ms',
  'lease_expires_at_ms', 'log_ids', 'children_left', 'children', 'cost')
local kind = f[1]
if not kind and f[2] then
  -- A recipe producer's job has no kind field: its payload's.
  local ok, decoded = pcall(cjson.decode, f[2])
  if ok and type(decoded) == 'table' and type(decoded.kind) == 'string' then kind = decoded.kind end
end
local group = f[4]
if group == '' then group = nil end
-- What the job takes of each rate limit (see lib/limits.lua): its hash's 'cost', absent: 1.
local cost = math.max(1, math.floor(tonumber(f[17] or '') or 1))
local reasons = {}
local function add(reason) reasons[#reasons + 1] = reason end
-- A hash's number, or nil for none and for one JSON cannot hold (a hand-written 'inf' or 'nan').
local function number_or_nil(text)
  local n = tonumber(text or '')
  if n and n == n and n > -1e300 and n < 1e300 then return n end
  return nil
end

-- A pause's field holds when it began (ms); an older pause holds '1' and its time is not known.
local function since(value)
  local at = number_or_nil(value)
  if at and at > 1 then return at end
  return cjson.null
end

-- The rate limit of `text` ('max/windowMs' or, spread, 'max/windowMs/burst', see
-- lib/admission.lua) when it has no room for a start: its numbers and when the next start
-- may come; nil when it has room for the job's cost. A sliding window (at `key`) holds the
-- starts of (now - window, now]: with c = min(cost, max), it is full when it holds a
-- (max - c + 1)-th newest start, and opens when that one leaves it (read with ZRANGE alone, the
-- commands a queue's ACL user has). A spread limit (its arrival time at `spread_key`, see
-- lib/limit-scopes.lua) has room while that time is at most burst - min(cost, burst) intervals
-- ahead of now.
local function rate_full(key, spread_key, text)
  local rate = parse_rate(text)
  if not rate then return nil end
  local max, window, burst = rate[1], rate[2], rate[3]
  if burst then
    local t = spread_interval_us(rate)
    local tat = number_or_nil(redis.call('GET', spread_key)) or 0
    local open_us = tat - (burst - math.min(cost, burst)) * t
    if open_us <= now * 1000 then return nil end
    return { max = max, windowMs = window, untilMs = math.ceil(open_us / 1000), spread = true, burst = burst }
  end
  local at = redis.call('ZRANGE', key, '+inf', '(' .. int_text(now - window), 'BYSCORE', 'REV', 'LIMIT', max - math.min(cost, max), 1, 'WITHSCORES')
  local started = number_or_nil(at[2])
  if not started then return nil end
  return { max = max, windowMs = window, untilMs = started + window }
end

-- The cap at running set `key` (`text` slots) when every slot is held by a live lease: the ids
-- holding them (at most WHY_IDS_MAX, `more` when others do too) and when a slot frees (the
-- cap-th latest lease ends); nil when it has room.
local function cap_full(key, text)
  local cap = number_or_nil(text)
  if not cap or cap < 1 then return nil end
  local floor = '(' .. int_text(now)
  local at = redis.call('ZRANGE', key, '+inf', floor, 'BYSCORE', 'REV', 'LIMIT', cap - 1, 1, 'WITHSCORES')
  if not at[1] then return nil end
  local held = redis.call('ZRANGE', key, floor, '+inf', 'BYSCORE', 'LIMIT', 0, WHY_IDS_MAX + 1)
  local ids = {}
  for i = 1, math.min(#held, WHY_IDS_MAX) do ids[i] = held[i] end
  return { cap = cap, heldBy = ids, more = #held > WHY_IDS_MAX, freesAtMs = number_or_nil(at[2]) or cjson.null }
end

-- Jobs ahead of the job in `list` (nearer its claim end), or nil when it is not among the
-- WHY_SCAN_MAX ids nearest that end; and whether the list is longer than that.
local function ahead_in(list)
  local length = redis.call('LLEN', list)
  if length == 0 then return nil, false end
  local at = redis.call('LPOS', list, id, 'RANK', -1, 'MAXLEN', WHY_SCAN_MAX)
  if at then return length - 1 - at, false end
  return nil, length > WHY_SCAN_MAX
end

-- What holds a waiting job back whatever list it waits in: pauses, limits, a pushback.
local function holds(admission)
  if admission.paused then add({ code = 'queue-paused', sinceMs = since(admission.paused), pausedBy = admission.paused_by }) end
  if kind and admission['paused_kind:' .. kind] then
    add({ code = 'kind-paused', kind = kind, sinceMs = since(admission['paused_kind:' .. kind]), pausedBy = admission['paused_by:' .. kind] })
  end
  local full = admission.rate and rate_full(queue_rate(prefix), queue_spread(prefix), admission.rate)
  if full then full.code, full.scope = 'rate-limited', 'queue'; add(full) end
  full = admission.cap and cap_full(queue_running(prefix), admission.cap)
  if full then full.code = 'queue-cap-full'; add(full) end
  if kind then
    full = admission['rate_kind:' .. kind] and rate_full(kind_rate(prefix, kind), kind_spread(prefix, kind), admission['rate_kind:' .. kind])
    if full then full.code, full.scope, full.kind = 'rate-limited', 'kind', kind; add(full) end
    local until_ms = number_or_nil(admission['limited_until:' .. kind])
    if until_ms and until_ms > now then add({ code = 'pushed-back', kind = kind, untilMs = until_ms }) end
    full = admission['cap_kind:' .. kind] and cap_full(kind_running(prefix, kind), admission['cap_kind:' .. kind])
    if full then full.code, full.kind = 'kind-cap-full', kind; add(full) end
  end
  if group then
    full = admission.group_rate and rate_full(group_rate(prefix, group), group_spread(prefix, group), admission.group_rate)
    if full then full.code, full.scope, full.group = 'rate-limited', 'group', group; add(full) end
    full = admission.group_cap and cap_full(group_running(prefix, group), admission.group_cap)
    if full then full.code, full.group = 'group-cap-full', group; add(full) end
  end
end

-- The jobs waiting at a higher priority than `level` (pending is level 0), which claims take
-- first; `in_pending`: the job waits in pending (a carrier), whose jobs count as ahead of it.
local function higher_than(level, in_pending)
  local count = 0
  for _, other in ipairs(redis.call('ZRANGE', levels_set(prefix), '(' .. int_text(level), '+inf', 'BYSCORE')) do
    count = count + redis.call('LLEN', priority_list(prefix, tonumber(other)))
  end
  if level < 0 and not in_pending then count = count + redis.call('LLEN', KEYS[2]) end
  return count
end

-- Where a pending job waits: pending, its priority's list, its group's list, its kind's parked list.
local function place(admission, has_admission)
  local level = number_or_nil(f[3]) or 0
  local lists = { { KEYS[2], 'pending' } }
  if level ~= 0 then lists[#lists + 1] = { priority_list(prefix, level), 'priority' } end
  if group then lists[#lists + 1] = { group_list(prefix, group), 'group' } end
  if kind then lists[#lists + 1] = { parked_list(prefix, kind), 'parked' } end
  local longest = nil
  for _, entry in ipairs(lists) do
    local ahead, long = ahead_in(entry[1])
    if ahead then
      if entry[2] == 'group' then
        add({ code = 'group-turn', group = group, ahead = ahead, turnAtMs = number_or_nil(redis.call('ZSCORE', groups_set(prefix), group)) or cjson.null })
      elseif entry[2] == 'parked' then
        add({ code = 'parked', kind = kind, ahead = ahead })
      else
        if has_admission then
          local higher = higher_than(level, entry[2] == 'pending')
          if higher > 0 then add({ code = 'behind-higher-priority', jobs = higher, priority = level }) end
        end
        add({ code = 'queued', list = entry[2], priority = level, ahead = ahead, atLeast = false })
      end
      return
    end
    if long and not longest then longest = entry end
  end
  if longest then
    -- Deeper than the scan reaches: it may well be there, further back.
    add({ code = 'queued', list = longest[2], priority = level, ahead = WHY_SCAN_MAX, atLeast = true })
  else
    add({ code = 'not-listed' })
  end
end

-- The worker of a running job's last claim, from the event log (nil when the log is off or trimmed).
local function claimed_by()
  local listed = {}
  for entry_id in string.gmatch(f[14] or '', '%S+') do listed[#listed + 1] = entry_id end
  for i = #listed, 1, -1 do
    local found = redis.call('XRANGE', KEYS[6], listed[i], listed[i])
    local entry = found[1] and found[1][2]
    if entry then
      local fields = {}
      for j = 1, #entry, 2 do fields[entry[j]] = entry[j + 1] end
      if fields.event == 'claimed' then
        if fields.worker and fields.worker ~= '' then return fields.worker end
        return nil
      end
    end
  end
  return nil
end

local expires = number_or_nil(f[6])
if status == 'completed' then
  add({ code = 'completed', atMs = number_or_nil(f[7]) or cjson.null })
elseif status == 'cancelled' then
  add({ code = 'cancelled', atMs = number_or_nil(f[9]) or cjson.null })
elseif status == 'failed' then
  local err = f[10] or ''
  if string.find(err, 'JOBS_EXPIRED', 1, true) == 1 then
    add({ code = 'expired', expiresAtMs = expires or cjson.null, atMs = number_or_nil(f[8]) or cjson.null })
  else
    add({ code = 'failed', atMs = number_or_nil(f[8]) or cjson.null, error = err, attempts = number_or_nil(f[5]) or 0 })
  end
elseif status == 'processing' then
  add({ code = 'running', worker = claimed_by() or cjson.null,
    claimedAtMs = number_or_nil(f[12]) or number_or_nil(f[11]) or cjson.null,
    leaseExpiresAtMs = number_or_nil(redis.call('ZSCORE', KEYS[4], id)) or number_or_nil(f[13]) or cjson.null })
elseif expires and expires <= now and (status == 'pending' or status == 'delayed') then
  -- The first claim to meet it fails it: it will not run.
  add({ code = 'expired', expiresAtMs = expires, atMs = cjson.null })
elseif status == 'pending' or status == 'delayed' or status == 'waiting-children' then
  local hash = redis.call('HGETALL', KEYS[5])
  local admission = {}
  for i = 1, #hash, 2 do admission[hash[i]] = hash[i + 1] end
  if status == 'waiting-children' then
    local waiting = {}
    local ok, children = pcall(cjson.decode, f[16] or '[]')
    if ok and type(children) == 'table' then
      for i, child in ipairs(children) do
        -- Bounded: a wide flow's settled children are not all read to find the waiting ones.
        if i > WHY_SCAN_MAX or #waiting >= WHY_IDS_MAX then break end
        local entry = type(child) == 'string' and redis.call('HGET', job_key, 'child:' .. child)
        if entry and string.find(entry, '{"status":"waiting",', 1, true) == 1 then
          waiting[#waiting + 1] = child
        end
      end
    end
    add({ code = 'waiting-children', left = number_or_nil(f[15]) or #waiting, children = waiting })
  elseif status == 'delayed' then
    local due = number_or_nil(redis.call('ZSCORE', KEYS[3], id))
    if due then
      add({ code = 'delayed', untilMs = due, retry = (number_or_nil(f[5]) or 0) > 0, attempts = number_or_nil(f[5]) or 0 })
    else
      add({ code = 'not-listed' })
    end
    holds(admission)
  else
    holds(admission)
    place(admission, #hash > 0)
  end
end

-- A job that waits to start, of a kind no worker alive in the registry handles.
if ARGV[3] == '1' and kind and (status == 'pending' or status == 'delayed') and not (expires and expires <= now) then
  if live_workers_for_kind(prefix, kind, now) == 0 then
    add({ code = 'no-live-worker', kind = kind, liveWorkers = #live_worker_entries(prefix, now) / 2 })
  end
end

local out = { status = status, now = now, reasons = reasons }
if kind then out.kind = kind end
return cjson.encode(out)
