#!lua flags=allow-oom
--[[
  rate-limited: a handler said the service behind its job's kind pushed back (RateLimitedError):
  no worker claims that kind until now + retryAfterMs ('limited_until:<kind>' in the admission hash,
  read by every claim; a later pushback that ends sooner does not shorten it), and the job goes
  back to the claim end of its list (it keeps its place and priority) without the attempt
  counting against it. Fenced like fail: nothing changes unless the caller holds the claim.

  KEYS[1]  job: the job's hash
  KEYS[2]  processing: processing list
  KEYS[3]  pending: pending list
  KEYS[4]  leases: lease index sorted set
  KEYS[5]  stats: stats hash
  KEYS[6]  admission: admission hash (see lib/limits.lua)
  KEYS[7]  log: the event log stream (see lib/log-event.lua)
  ARGV[1]  jobPrefix: job key prefix ("queue:{NAME}:job:")
  ARGV[2]  id: the job's id
  ARGV[3]  token: claim token
  ARGV[4]  retryAfterMs: ms from now during which the job's kind is not claimed
  ARGV[5]  error: the reason (stored as last_error)
  ARGV[6]  channel: events channel ('' = publish nothing)
  ARGV[7]  prefix: the queue's key prefix ("queue:{NAME}:"), for the admission keys (see lib/admission.lua)
  ARGV[8]  logMaxLen: the event log's cap ('0' = the log is off)
  ARGV[9]  worker: the worker's id, for the event log ('' = none)
  ARGV[10] errorJson: the reason in its JSON form (see src/error-shape.ts), for last_error_json and the attempt's record
  ARGV[11] attemptsKeep: ended attempts kept in the job's trail (0 = none, see lib/job-trail.lua)
  Returns: NOT_OWNER (nothing changed), else the time (ms) until which the kind is held
  Reply:   number
]]
--@include lib/now.lua
--@include lib/job-status.lua
--@include lib/remove-from-list.lua
--@include lib/holds-claim.lua
--@include lib/events.lua
--@include lib/push-pending.lua
--@include lib/free-slots.lua
--@include lib/log-event.lua
--@include lib/job-trail.lua

local key, id = KEYS[1], ARGV[2]
if not (holds_claim(key, ARGV[3]) and remove_from_list(KEYS[2], id) == 1) then return NOT_OWNER end
local now = now_ms()
redis.call('ZREM', KEYS[4], id)
local f = redis.call('HMGET', key, 'attempts', 'priority', 'group', 'slots', 'kind', 'payload')
local kind = f[5]
if not kind then
  local ok, decoded = pcall(cjson.decode, f[6] or '')
  if ok and type(decoded) == 'table' and type(decoded.kind) == 'string' then kind = decoded.kind end
end
local until_ms = now + tonumber(ARGV[4])
if kind then
  local field = 'limited_until:' .. kind
  until_ms = math.max(until_ms, tonumber(redis.call('HGET', KEYS[6], field)) or 0)
  redis.call('HSET', KEYS[6], field, int_text(until_ms))
end
local attempts = tonumber(f[1])
load_job_trail()
record_attempt(key, tonumber(ARGV[11]), ARGV[9], now, 'rate_limited', ARGV[10], tonumber(ARGV[4]) / 1000)
redis.call('HSET', key, 'status', 'pending', 'claim_token', '', 'claimed_at_ms', '0', 'last_error', ARGV[5],
  'last_error_at_ms', int_text(now), 'last_error_json', ARGV[10], 'trail', '1')
if attempts and attempts >= 1 then redis.call('HSET', key, 'attempts', int_text(attempts - 1)) end
redis.call('HDEL', key, 'lease_expires_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'slots')
local slots_ctx = { prefix = ARGV[7], job_prefix = ARGV[1], pending = KEYS[3] }
if f[4] then load_free_slots(); free_slots(slots_ctx, id, f[4], 'k') end
push_pending(ARGV[7], KEYS[3], id, f[2], true, f[3])
-- The group slot last: the turn goes back to this job, first in its group again.
if f[4] then free_slots(slots_ctx, id, f[4], 'g') end
redis.call('HINCRBY', KEYS[5], 'rate_limited_total', 1)
publish_event(ARGV[6], id, 'released')
log_event(open_log(KEYS[7], ARGV[8], ARGV[1]), id, 'released', nil, ARGV[9], 'RATE_LIMITED')
return until_ms
