-- BROKEN (with pexpire.lua as a second step): SETNX takes the key without
-- a lease; the lease comes from a second call. A client that crashes
-- between the two leaves a key that never expires: nobody gets the lock
-- again. KEYS[1]: the lock key. ARGV[1]: the token. Replies 1 or 0.
return redis.call('SETNX', KEYS[1], ARGV[1])
