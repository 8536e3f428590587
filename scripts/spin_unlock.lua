-- SpinLock release of one hold (Redisson RedissonSpinLock.unlockInnerAsync
-- without its unlock latch): the reentrant unlock without the PUBLISH, as
-- nobody waits on a channel for a spin lock.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel (unused; kept so the unlock's KEYS match)
--   ARGV[1]  the unlock message (unused)
--   ARGV[2]  lease in ms, re-armed while holds remain
--   ARGV[3]  the owner "<client-id>:<task-id>"
-- Returns nil when the owner holds no lock here; 0 when holds remain; 1
-- when the last hold went and the key was deleted.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
return 1
