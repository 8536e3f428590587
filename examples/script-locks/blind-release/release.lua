-- BROKEN: deletes the key whoever holds it. If this holder's lease ran out
-- before the DEL arrived, the key is the next holder's, and deleting it
-- lets a third client in beside the second.
-- KEYS[1]: the lock key. Replies 1 (a key was deleted) or 0.
return redis.call('DEL', KEYS[1])
