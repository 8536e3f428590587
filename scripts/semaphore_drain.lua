-- Semaphore drain (Redisson RSemaphore.drainPermitsAsync): take every
-- available permit.
--   KEYS[1]  the semaphore key (a string: the number of available permits)
-- Returns the permits taken. A missing key stays missing and answers 0 (a
-- plain GETSET would create it with 0, which Redisson does not do).
local value = redis.call('get', KEYS[1])
if value == false then
  return 0
end
redis.call('set', KEYS[1], 0)
return value
