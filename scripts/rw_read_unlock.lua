-- ReadWriteLock release of one read hold.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_rwlock:{<key>}
--   ARGV[1]  the unlock message
--   ARGV[2]  lease in ms (unused: a read release never shortens the expiry)
--   ARGV[3]  the reader's field (the owner)
-- Returns nil when the owner holds no read lock here; 0 when the hash still
-- holds someone (this owner's other read holds, other readers, or this
-- owner's write lock); 1 when it was the last hold: the key is deleted and
-- waiters are told on the channel.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) <= 0 then
  redis.call('hdel', KEYS[1], ARGV[3])
end
if redis.call('hlen', KEYS[1]) > 1 then
  return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
