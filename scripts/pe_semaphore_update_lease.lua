-- PermitExpirableSemaphore update_lease_time: give a still-held permit a new
-- lease from now.
--   KEYS[1]  the timeout sorted set
--   ARGV[1]  the permit id
--   ARGV[2]  the new lease in ms
--   ARGV[3]  now, ms on the caller's clock (Redisson: System.currentTimeMillis())
-- Returns 1 when updated, 0 when the id is not held (unknown, released or expired).
local now = tonumber(ARGV[3])
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
redis.call('zadd', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return 1
