-- FencedLock acquire (Redisson RFencedLock semantics): the ReentrantLock
-- acquire plus a fencing token. Every successful acquisition, a re-entry
-- included, INCRs the token counter in the same script, so tokens are handed
-- out in the order the lock was taken and never twice.
--   KEYS[1]  the lock key (a hash: owner -> hold count)
--   KEYS[2]  the token counter, "{<key>}:token" (a string; never expires)
--   ARGV[1]  lease in ms
--   ARGV[2]  the owner "<client-id>:<task-id>"
-- Returns {1, token} when the owner now holds the lock, else {0, pttl} with
-- the lock's PTTL in ms for the waiter.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local token = redis.call('incr', KEYS[2])
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, token}
end
return {0, redis.call('pttl', KEYS[1])}
