-- Semaphore release and add_permits (Redisson RSemaphore semantics): add
-- ARGV[1] permits (negative to remove) and tell the waiters.
--   KEYS[1]  the semaphore key
--   KEYS[2]  its channel, redisson_sc:{<name>}
--   ARGV[1]  permits to add
-- Returns the new number of available permits, which is also the message.
local available = redis.call('incrby', KEYS[1], ARGV[1])
redis.call('publish', KEYS[2], available)
return available
