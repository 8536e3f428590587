-- node-redlock release as node-redlock PR #362 proposes (open, not merged):
-- a resource that is already gone counts as released, so releasing a lock
-- that just expired no longer fails the quorum (node-redlock#65, #168).
--   KEYS     the resources
--   ARGV[1]  the lock's value
-- Returns the number of resources that are now free of the value: deleted
-- here, or gone already. A resource holding another value is not counted.
local freed = 0
for _, key in ipairs(KEYS) do
  local stored = redis.call('get', key)
  if stored == ARGV[1] then
    redis.pcall('del', key)
    freed = freed + 1
  elseif stored == false then
    freed = freed + 1
  end
end
return freed
