-- ReadWriteLock release of one write hold.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_rwlock:{<key>}
--   ARGV[1]  the unlock message
--   ARGV[2]  lease in ms, re-armed while write holds remain
--   ARGV[3]  the writer's field ("<owner>:write")
-- Returns nil when the owner holds no write lock; 0 when write holds remain;
-- 1 when the last write hold went. Then the key is deleted if nothing else is
-- held, or, when the writer still holds read locks, the mode turns to 'read'
-- (a downgrade); either way waiters are told on the channel.
if redis.call('hget', KEYS[1], 'mode') ~= 'write' or
   redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
  redis.call('del', KEYS[1])
else
  redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('publish', KEYS[2], ARGV[1])
return 1
