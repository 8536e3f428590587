-- ReentrantLock force unlock: delete the lock whoever holds it, and wake the
-- waiters as a normal release does.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel
--   ARGV[1]  the unlock message
-- Returns 1 when a lock was deleted, 0 when there was none.
if redis.call('del', KEYS[1]) == 1 then
  redis.call('publish', KEYS[2], ARGV[1])
  return 1
end
return 0
