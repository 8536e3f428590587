-- Semaphore acquire (Redisson RSemaphore semantics): take ARGV[1] permits
-- from the count at KEYS[1] if that many are available, all or nothing.
--   KEYS[1]  the semaphore key (a string: the number of available permits)
--   ARGV[1]  permits wanted, > 0
-- Returns 1 when taken (the count went down by ARGV[1]), else 0 (a missing
-- key counts as 0 available).
local available = tonumber(redis.call('get', KEYS[1]) or '0')
if available >= tonumber(ARGV[1]) then
  redis.call('decrby', KEYS[1], ARGV[1])
  return 1
end
return 0
