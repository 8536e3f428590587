-- PermitExpirableSemaphore available permits: return every expired permit
-- to the count first (Redisson availablePermitsAsync), then read it.
--   KEYS[1]  the semaphore key
--   KEYS[2]  the timeout sorted set
--   KEYS[3]  the channel
--   ARGV[1]  now, ms on the caller's clock (Redisson: System.currentTimeMillis())
-- Returns the number of available permits (0 when the key is absent).
local expired = redis.call('zrangebyscore', KEYS[2], 0, tonumber(ARGV[1]))
if #expired > 0 then
  redis.call('zrem', KEYS[2], unpack(expired))
  local value = redis.call('incrby', KEYS[1], #expired)
  if value > 0 then redis.call('publish', KEYS[3], value) end
end
return tonumber(redis.call('get', KEYS[1]) or '0')
