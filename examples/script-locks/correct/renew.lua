-- Compare-and-pexpire: extend the lease only while the key holds our token.
-- KEYS[1]: the lock key. ARGV[1]: the token. ARGV[2]: the lease in ms.
-- Replies 1 (renewed) or 0 (the lock is no longer ours: stop renewing).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
