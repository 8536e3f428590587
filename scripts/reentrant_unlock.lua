-- ReentrantLock release of one hold (Redisson RLock semantics).
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_lock__channel:{<key>}
--   ARGV[1]  the unlock message published to waiters
--   ARGV[2]  lease in ms, re-armed while holds remain
--   ARGV[3]  the owner "<client-id>:<task-id>"
-- Returns nil when the owner holds no lock here (the caller throws
-- LockNotOwned); 0 when holds remain; 1 when the last hold went: the key is
-- deleted and waiters are told on the channel.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
