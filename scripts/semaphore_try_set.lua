-- Semaphore try_set_permits (Redisson RSemaphore.trySetPermits): set the
-- count only when the semaphore does not exist yet, and tell the waiters.
--   KEYS[1]  the semaphore key
--   KEYS[2]  its channel
--   ARGV[1]  the permits
-- Returns 1 when set, 0 when the semaphore already existed (left alone).
if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then
  redis.call('publish', KEYS[2], ARGV[1])
  return 1
end
return 0
