-- ReentrantLock acquire (Redisson RLock semantics). The lock is a hash whose
-- only field is the owner "<client-id>:<task-id>" and whose value is the hold
-- count.
--   KEYS[1]  the lock key
--   ARGV[1]  lease in ms (the watchdog timeout when no lease was given)
--   ARGV[2]  the owner
-- Returns nil when the owner now holds the lock (first hold or re-entry; the
-- lease is re-armed either way), else the lock's PTTL in ms for the waiter.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])
