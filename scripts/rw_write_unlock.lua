-- ReadWriteLock release of one write hold (RedissonWriteLock.unlockInnerAsync).
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_rwlock:{<key>}
--   KEYS[3]  the unlock latch, redisson_unlock_latch:{<key>}:<request id>
--   ARGV[1]  the unlock message (Redisson's READ_UNLOCK_MESSAGE, 1: it
--            wakes every waiter, readers may all go)
--   ARGV[2]  lease in ms, re-armed while write holds remain
--   ARGV[3]  the writer's field ("<owner>:write")
--   ARGV[4]  how long the latch lives, ms; 0: no latch (KEYS[3] unused)
-- With a latch, a result stored by an earlier run with the same request id
-- is returned instead of releasing again. Returns nil when the owner holds
-- no write lock (when nobody holds the lock at all, waiters are told
-- anyway); 0 when write holds remain; 1 when the last write hold went: the
-- key is deleted and waiters are told when nothing else is held, or, when
-- the writer still holds read locks, the mode turns to 'read' (a downgrade)
-- and nobody is told, as in Redisson.
local latch = tonumber(ARGV[4]) > 0
if latch then
  local done = redis.call('get', KEYS[3])
  if done then
    return tonumber(done)
  end
end
local function finish(result)
  if latch then
    redis.call('set', KEYS[3], result, 'px', ARGV[4])
  end
  return result
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('publish', KEYS[2], ARGV[1])
  if latch then
    redis.call('set', KEYS[3], 1, 'px', ARGV[4])
  end
  return nil
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return finish(0)
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
  redis.call('del', KEYS[1])
  redis.call('publish', KEYS[2], ARGV[1])
else
  redis.call('hset', KEYS[1], 'mode', 'read')
end
return finish(1)
