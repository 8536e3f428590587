-- PermitExpirableSemaphore available permits: return expired permits to the
-- count first (as Redisson's availablePermits does), then read it.
--   KEYS[1]  the semaphore key
--   KEYS[2]  the timeout sorted set
--   KEYS[3]  the channel
-- Returns the number of available permits (0 when the key is absent).
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('zrangebyscore', KEYS[2], '-inf', now)
if #expired > 0 then
  redis.call('zrem', KEYS[2], unpack(expired))
  redis.call('publish', KEYS[3], redis.call('incrby', KEYS[1], #expired))
end
return tonumber(redis.call('get', KEYS[1]) or '0')
