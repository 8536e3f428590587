-- FairLock force unlock: delete the lock whoever holds it and tell the head
-- waiter, after dropping the waiters whose place expired.
--   KEYS[1]  the lock key
--   KEYS[2]  the waiting queue (list)
--   KEYS[3]  the reservations (sorted set, owner -> until ms)
--   KEYS[4]  the channel prefix, redisson_lock__channel:{<key>}
--   ARGV[1]  the unlock message
--   ARGV[2]  the caller's current time in ms
-- Returns 1 when a lock was deleted, 0 when there was none.
local now = tonumber(ARGV[2])
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if not head then break end
  local until_ms = tonumber(redis.call('zscore', KEYS[3], head))
  if until_ms ~= nil and until_ms > now then break end
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], head)
end
if redis.call('del', KEYS[1]) == 1 then
  local head = redis.call('lindex', KEYS[2], 0)
  if head then
    redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
  end
  return 1
end
return 0
