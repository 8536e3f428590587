-- FairLock release of one hold (Redisson RFairLock semantics).
--   KEYS[1]  the lock key
--   KEYS[2]  the waiting queue (list)
--   KEYS[3]  the reservations (sorted set, owner -> until ms)
--   KEYS[4]  the channel prefix, redisson_lock__channel:{<key>}; the waiter
--            at the head of the queue is told on "<prefix>:<its owner>"
--   ARGV[1]  the unlock message
--   ARGV[2]  lease in ms, re-armed while holds remain
--   ARGV[3]  the owner
--   ARGV[4]  the caller's current time in ms
--   KEYS[5]  the unlock latch, redisson_unlock_latch:{<key>}:<request id>
--            (optional, with ARGV[5])
--   ARGV[5]  how long the latch lives, ms; absent or 0: no latch
-- With a latch, a result stored by an earlier run with the same request id
-- is returned instead of releasing again (RedissonFairLock.unlockInnerAsync).
-- Returns 1 when the lock is gone altogether (expired or forced away): the
-- head waiter is told and the caller returns normally, as
-- RedissonFairLock.unlockInnerAsync does; nil when someone else holds it;
-- 0 when holds remain; 1 when the last hold went: the key is deleted and
-- only the head waiter is told.
local latch = tonumber(ARGV[5] or '0') > 0
if latch then
  local done = redis.call('get', KEYS[5])
  if done then
    return tonumber(done)
  end
end
local function finish(result)
  if latch then
    redis.call('set', KEYS[5], result, 'px', ARGV[5])
  end
  return result
end
local now = tonumber(ARGV[4])
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if not head then break end
  local until_ms = tonumber(redis.call('zscore', KEYS[3], head))
  if until_ms ~= nil and until_ms > now then break end
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], head)
end

local function wake_head()
  local head = redis.call('lindex', KEYS[2], 0)
  if head then
    redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
  end
end

if redis.call('exists', KEYS[1]) == 0 then
  wake_head()
  return finish(1)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return finish(0)
end
redis.call('del', KEYS[1])
wake_head()
return finish(1)
