-- FairLock: a waiter gives up (its wait ran out, or its attempt failed).
-- It leaves the queue, and everyone behind it moves up one place, so their
-- reservations shrink by one wait (Redisson's acquireFailed).
--   KEYS[1]  the waiting queue (list)
--   KEYS[2]  the reservations (sorted set, owner -> until ms)
--   ARGV[1]  the owner
--   ARGV[2]  threadWaitTime in ms
-- Returns 1 when the owner was queued, else 0.
local wait = tonumber(ARGV[2])
local found = false
for _, waiter in ipairs(redis.call('lrange', KEYS[1], 0, -1)) do
  if found then
    redis.call('zincrby', KEYS[2], -wait, waiter)
  elseif waiter == ARGV[1] then
    found = true
  end
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
if found then
  return 1
end
return 0
