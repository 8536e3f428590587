-- ReentrantLock watchdog renewal: extend the lease only while the owner
-- still holds the lock, so a renewal can never resurrect or steal a lock.
--   KEYS[1]  the lock key
--   ARGV[1]  lease in ms (lock_watchdog_timeout)
--   ARGV[2]  the owner "<client-id>:<task-id>"
-- Returns 1 when renewed, 0 when the owner no longer holds it (the watchdog stops).
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0
