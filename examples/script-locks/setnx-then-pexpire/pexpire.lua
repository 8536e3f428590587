-- The second step of the acquire: give the key its lease.
-- KEYS[1]: the lock key. ARGV[1]: the lease in ms.
return redis.call('PEXPIRE', KEYS[1], ARGV[1])
