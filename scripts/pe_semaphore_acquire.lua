-- PermitExpirableSemaphore acquire (Redisson
-- RedissonPermitExpirableSemaphore.tryAcquireAsync(ids, timeoutDate)): at
-- most as many expired permits as requested (one) come back first, then one
-- permit is taken under a fresh id with its own expiry. Time is the
-- client's clock, as Redisson passes System.currentTimeMillis().
--   KEYS[1]  the semaphore key (a string: available permits)
--   KEYS[2]  the timeout sorted set "{<name>}:timeout": permit id -> expiry
--            (ms on the clients' clocks)
--   KEYS[3]  the channel, redisson_sc:{<name>}
--   ARGV[1]  lease in ms (> 0), or 'never': the permit never expires (its
--            score is Redisson's nonExpirableTimeout, 922337203685477)
--   ARGV[2]  the new permit's id
--   ARGV[3]  now, ms on the caller's clock
-- Returns the id (bulk) when taken; else an integer: ms until the earliest
-- expiring permit expires (>= 0), or -1 when no held permit ever expires.
local never = 922337203685477
local now = tonumber(ARGV[3])
local expired = redis.call('zrangebyscore', KEYS[2], 0, now, 'limit', 0, 1)
if #expired > 0 then
  redis.call('zrem', KEYS[2], unpack(expired))
  local value = redis.call('incrby', KEYS[1], #expired)
  if value > 0 then redis.call('publish', KEYS[3], value) end
end
if tonumber(redis.call('get', KEYS[1]) or '0') >= 1 then
  redis.call('decrby', KEYS[1], 1)
  local expiry = never
  if ARGV[1] ~= 'never' then expiry = now + tonumber(ARGV[1]) end
  redis.call('zadd', KEYS[2], expiry, ARGV[2])
  return ARGV[2]
end
local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if first[2] and tonumber(first[2]) ~= never then
  return math.max(tonumber(first[2]) - now, 0)
end
return -1
