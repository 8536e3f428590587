-- PermitExpirableSemaphore update_lease_time: give a still-held permit a new
-- lease from now.
--   KEYS[1]  the timeout sorted set
--   ARGV[1]  the permit id
--   ARGV[2]  the new lease in ms
-- Returns 1 when updated, 0 when the id is not held (unknown, released or expired).
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
redis.call('zadd', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return 1
