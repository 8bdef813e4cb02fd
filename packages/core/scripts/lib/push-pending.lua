--@include lib/admission.lua
-- Puts a waiting job onto pending (claim_end: the end claims take next; else the back), as the
-- recipe does, when it has priority 0 (or none) and no group; else where push_by_priority puts
-- it (lib/admission.lua, loaded then). `priority` is text or a number, nil or false for none.
local function push_pending(prefix, pending, id, priority, claim_end, group)
  if (group and group ~= '') or (tonumber(priority) or 0) ~= 0 then
    load_admission()
    return push_by_priority(prefix, pending, id, priority, claim_end, group)
  end
  if claim_end then redis.call('RPUSH', pending, id) else redis.call('LPUSH', pending, id) end
end
