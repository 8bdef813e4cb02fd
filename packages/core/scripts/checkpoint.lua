#!lua flags=allow-oom
--[[
  checkpoint: stores a running job's checkpoint (a handler's `ctx.checkpoint`), fenced like
  complete: only the holder of the live claim can write it. The JSON goes in the hash's
  `checkpoint` field (with `checkpoint_at_ms`), where the job's later attempts read it back; it
  stays with the hash until the job's record goes. Writing it again with the same value changes
  nothing more, so a resend after a lost reply is safe.

  KEYS[1]  job: the job's hash
  ARGV[1]  token: claim token
  ARGV[2]  checkpoint: the checkpoint's JSON
  Returns: CLAIM_DONE stored, CLAIM_CANCELLED the job was cancelled while it ran, NOT_OWNER not
           the caller's claim (nothing changed)
  Reply:   number
]]
--@include lib/now.lua
--@include lib/holds-claim.lua

local owned, f = holds_claim(KEYS[1], ARGV[1])
if not owned then return f and cancelled_claim(KEYS[1], f[1], ARGV[1]) and CLAIM_CANCELLED or NOT_OWNER end
redis.call('HSET', KEYS[1], 'checkpoint', ARGV[2], 'checkpoint_at_ms', int_text(now_ms()))
return CLAIM_DONE
