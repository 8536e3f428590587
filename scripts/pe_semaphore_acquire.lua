-- PermitExpirableSemaphore acquire (Redisson RPermitExpirableSemaphore
-- semantics): permits whose lease ran out come back first, then one permit
-- is taken under a fresh id with its own expiry.
--   KEYS[1]  the semaphore key (a string: available permits)
--   KEYS[2]  the timeout sorted set "{<name>}:timeout": permit id -> expiry
--            (ms on the server's clock, redis TIME)
--   KEYS[3]  the channel, redisson_sc:{<name>}
--   ARGV[1]  lease in ms (> 0), or 'never': the permit never expires (its
--            score is Redisson's nonExpirableTimeout, 922337203685477)
--   ARGV[2]  the new permit's id
-- Returns the id (bulk) when taken; else an integer: ms until the earliest
-- held permit expires (>= 0), or -1 when no permit is held at all.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('zrangebyscore', KEYS[2], '-inf', now)
if #expired > 0 then
  redis.call('zrem', KEYS[2], unpack(expired))
  redis.call('publish', KEYS[3], redis.call('incrby', KEYS[1], #expired))
end
if tonumber(redis.call('get', KEYS[1]) or '0') >= 1 then
  redis.call('decrby', KEYS[1], 1)
  local expiry = 922337203685477
  if ARGV[1] ~= 'never' then expiry = now + tonumber(ARGV[1]) end
  redis.call('zadd', KEYS[2], expiry, ARGV[2])
  return ARGV[2]
end
local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if first[2] then
  return math.max(tonumber(first[2]) - now, 0)
end
return -1
