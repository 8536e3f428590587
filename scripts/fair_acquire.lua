-- FairLock acquire (Redisson RFairLock semantics). The lock is ReentrantLock's
-- hash (owner "<client-id>:<task-id>" -> hold count); beside it a queue of
-- waiting owners and, per waiter, the time until which its place is kept.
--   KEYS[1]  the lock key
--   KEYS[2]  the waiting queue, a list: redisson_lock_queue:{<key>}
--   KEYS[3]  the reservations, a sorted set owner -> until (ms, caller's clock):
--            redisson_lock_timeout:{<key>}
--   ARGV[1]  lease in ms (the watchdog timeout when no lease was given)
--   ARGV[2]  the owner
--   ARGV[3]  how long a place is kept beyond the one before, in ms: the call's
--            wait when it has one (> 0), else threadWaitTime, as
--            RedissonFairLock.tryLockInnerAsync sends
--   ARGV[4]  the caller's current time in ms (Redisson sends the client's clock)
--   ARGV[5]  '1': join the queue when the lock is not taken now (a waiting
--            acquire); '0': one attempt that leaves the queue alone (try_lock)
-- Returns nil when the owner now holds the lock (first hold or re-entry).
-- Otherwise, with ARGV[5] '0': the lock's PTTL; with '1': how long the
-- caller should wait before its next attempt, in ms: for a waiter already
-- queued the lock's PTTL, at least 0 (the formula since redisson#4705; it
-- used to be the place's end minus one wait); for a new waiter the time
-- until the place ahead (or the lease) ends (negative: wait for the message
-- on its own channel).
local now = tonumber(ARGV[4])
local wait = tonumber(ARGV[3])

-- Every attempt first drops the waiters at the head whose place has expired
-- (a crashed or vanished waiter must not block the queue for ever).
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if not head then break end
  local until_ms = tonumber(redis.call('zscore', KEYS[3], head))
  if until_ms ~= nil and until_ms > now then break end
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], head)
end

local head = redis.call('lindex', KEYS[2], 0)
if redis.call('exists', KEYS[1]) == 0 and (not head or head == ARGV[2]) then
  if head then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], ARGV[2])
    -- Everyone left moved up one place: each reservation shrinks by one wait.
    for _, waiter in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
      redis.call('zincrby', KEYS[3], -wait, waiter)
    end
  end
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end

if ARGV[5] ~= '1' then
  return redis.call('pttl', KEYS[1])
end

-- Already queued: come back when the lease ends (or the message comes).
if redis.call('zscore', KEYS[3], ARGV[2]) then
  return math.max(0, redis.call('pttl', KEYS[1]))
end

-- Join at the tail; the place is kept one wait beyond the place (or, with
-- nobody queued, the lease) of the one ahead.
local last = redis.call('lindex', KEYS[2], -1)
local ahead_ms
if last then
  ahead_ms = (tonumber(redis.call('zscore', KEYS[3], last)) or now) - now
else
  ahead_ms = redis.call('pttl', KEYS[1])
end
redis.call('zadd', KEYS[3], ahead_ms + wait + now, ARGV[2])
redis.call('rpush', KEYS[2], ARGV[2])
return ahead_ms
