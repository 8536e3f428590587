-- ReadWriteLock read half's isLocked (RedissonReadLock.isLocked): read mode,
-- or write mode with read holds besides the writer's.
--   KEYS[1]  the lock key
-- Returns 1 or 0.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then
  return 1
end
return 0
