-- HMGET of a job hash whose key may hold another type (a hand-written key): returns the values,
-- or nil for such a key, where a plain call would abort the script with WRONGTYPE. Every other
-- error (a Redis user without a permission) is raised: it must never read as "no such job".
local function read_hash(key, ...)
  local values = redis.pcall('HMGET', key, ...)
  if values.err then
    if string.find(values.err, 'WRONGTYPE', 1, true) then return nil end
    error(values)
  end
  return values
end
