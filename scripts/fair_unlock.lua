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
-- Returns 1 when the lock is gone altogether (expired or forced away): the
-- head waiter is told and the caller returns normally, as
-- RedissonFairLock.unlockInnerAsync does; nil when someone else holds it;
-- 0 when holds remain; 1 when the last hold went: the key is deleted and
-- only the head waiter is told.
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
  return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
wake_head()
return 1
