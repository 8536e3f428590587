-- Compare-and-delete: delete the key only while it still holds our token,
-- so a holder whose lease ran out never deletes the next holder's lock.
-- KEYS[1]: the lock key. ARGV[1]: the token. Replies 1 (released) or 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
