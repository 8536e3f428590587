-- SpinLock release of one hold with Redisson's unlock latch
-- (RedissonSpinLock.unlockInnerAsync): spin_unlock.lua, at most once per
-- request id. A retried unlock finds the latch and answers the first
-- attempt's result instead of releasing a second hold. No PUBLISH: nobody
-- waits on a channel for a spin lock.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel (unused; kept so the unlock's KEYS match)
--   KEYS[3]  the latch, redisson_unlock_latch:{<key>}:<request id>
--   ARGV[1]  the unlock message (unused)
--   ARGV[2]  lease in ms, re-armed while holds remain
--   ARGV[3]  the owner "<client-id>:<task-id>"
--   ARGV[4]  how long the latch lives, ms
-- Returns nil when the owner holds no lock here; 0 when holds remain; 1
-- when the last hold went and the key was deleted; or the result an earlier
-- run with the same request id stored.
local done = redis.call('get', KEYS[3])
if done then
  return tonumber(done)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[4])
  return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[4])
return 1
