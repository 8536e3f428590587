-- node-redlock v5 release, on one server (src/index.ts, RELEASE_SCRIPT):
-- delete each resource that still holds the value.
--   KEYS     the resources
--   ARGV[1]  the lock's value
-- Returns how many were deleted. The client counts a server as released only
-- when that is every resource, so a resource that already expired makes the
-- server vote against (node-redlock#65, #168).
local deleted = 0
for _, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    redis.pcall('del', key)
    deleted = deleted + 1
  end
end
return deleted
