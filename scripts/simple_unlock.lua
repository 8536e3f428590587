-- SimpleLock release: compare-and-delete, atomic because Redis runs a script
-- without interleaving other commands (the seeds' "unlock must be atomic").
--   KEYS[1]  the lock key
--   ARGV[1]  the token this acquisition wrote with SET key token NX PX lease
-- Returns 1 when our lock was deleted; 0 when the key is gone or holds another
-- token: our lease ran out, and someone else may hold the lock now.
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
