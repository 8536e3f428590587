-- Compare-and-delete, then tell the waiters: PUBLISH on the unlock channel
-- wakes them at once instead of after the holder's PTTL.
-- KEYS[1]: the lock key. KEYS[2]: the unlock channel. ARGV[1]: the token.
-- Replies 1 (released) or 0 (the lock was not ours any more).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[2], 'released')
  return 1
end
return 0
