-- Redisson's reply convention: nil when the lock was taken, else the
-- holder's remaining lease (PTTL, ms), which is how long a waiter need wait
-- at most. KEYS[1]: the lock key. ARGV[1]: this acquisition's token.
-- ARGV[2]: the lease in ms.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return nil
end
return redis.call('PTTL', KEYS[1])
