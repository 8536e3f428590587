-- ReentrantLock release of one hold, at most once per request id (Redisson's
-- unlock latch, issue #4871): a retried unlock finds the latch and returns
-- the first attempt's result instead of releasing a second hold.
--   KEYS[1]  the lock key
--   KEYS[2]  the lock's channel, redisson_lock__channel:{<key>}
--   KEYS[3]  the latch, redisson_unlock_latch:{<key>}:<request id>
--   ARGV[1]  the unlock message published to waiters
--   ARGV[2]  lease in ms, re-armed while holds remain
--   ARGV[3]  the owner "<client-id>:<task-id>"
--   ARGV[4]  how long the latch lives, ms
-- Returns what reentrant_unlock.lua returns (nil, 0 or 1), or the result an
-- earlier run with the same request id stored.
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
redis.call('publish', KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[4])
return 1
