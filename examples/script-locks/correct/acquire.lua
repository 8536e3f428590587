-- Take the lock if nobody holds it, with a lease, in one atomic command
-- (the SET NX PX of the Redis SET page's locking pattern).
-- KEYS[1]: the lock key. ARGV[1]: this acquisition's random token.
-- ARGV[2]: the lease in ms. Replies OK when taken, nil when held by another.
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
