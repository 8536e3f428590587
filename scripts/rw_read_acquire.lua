-- ReadWriteLock read acquire (RedissonReadLock.tryLockInnerAsync). The lock
-- is one hash: field 'mode' is 'read' or 'write'; each reader's field is its
-- owner "<client-id>:<task-id>" with its read hold count; the writer's field
-- is "<owner>:write" with its write hold count. Each read hold N of an owner
-- also has its own timeout key "<prefix>:N" (prefix
-- "{<key>}:<owner>:rwlock_timeout") that lives as long as that hold's lease.
--   KEYS[1]  the lock key
--   KEYS[2]  the owner's timeout prefix
--   ARGV[1]  lease in ms
--   ARGV[2]  the reader's field (the owner)
--   ARGV[3]  the same owner's writer field ("<owner>:write")
-- A read is granted when the lock is free, in read mode, or in write mode
-- held by this very owner (a writer may also read). The hash's expiry is
-- raised to the lease, never lowered (other holds may need longer).
-- Returns nil when granted, else the lock's PTTL in ms.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'read', ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':' .. hold, 1, 'px', ARGV[1])
  local left = redis.call('pttl', KEYS[1])
  redis.call('pexpire', KEYS[1], math.max(left, tonumber(ARGV[1])))
  return nil
end
return redis.call('pttl', KEYS[1])
