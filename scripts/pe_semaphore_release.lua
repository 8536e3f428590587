-- PermitExpirableSemaphore release of one permit by id: only a permit that
-- is still held (in the timeout set and not yet expired) goes back, so a
-- holder whose lease ran out can never return a permit twice.
--   KEYS[1]  the semaphore key
--   KEYS[2]  the timeout sorted set
--   KEYS[3]  the channel
--   ARGV[1]  the permit id
--   ARGV[2]  now, ms on the caller's clock (Redisson: System.currentTimeMillis())
-- Returns 1 when released (count + 1, published), 0 when the id is unknown,
-- already released, or expired (its expiry returns it, once).
local now = tonumber(ARGV[2])
local expiry = redis.call('zscore', KEYS[2], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('publish', KEYS[3], redis.call('incrby', KEYS[1], 1))
return 1
