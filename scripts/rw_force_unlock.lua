-- ReadWriteLock force unlock of one half (RedissonReadLock.forceUnlockAsync,
-- RedissonWriteLock.forceUnlockAsync): deletes the lock only while it is in
-- that half's mode.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_rwlock:{<key>}
--   ARGV[1]  the unlock message (0 for the read half, 1 for the write half)
--   ARGV[2]  the mode this half removes, 'read' or 'write'
-- Returns 1 when the lock was deleted and waiters told, else 0.
if redis.call('hget', KEYS[1], 'mode') == ARGV[2] then
  redis.call('del', KEYS[1])
  redis.call('publish', KEYS[2], ARGV[1])
  return 1
end
return 0
