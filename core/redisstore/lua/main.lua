-- floodgate redisstore main: decides one request (see step.lua). ARGV =
-- op, cost, now (µs, or -1 to read Redis TIME), taken (see step.lua),
-- expiry slack (ms).
local now = tonumber(ARGV[3])
ONTIME = now < 0
if now < 0 then
  local t = redis.call('TIME')
  if t[1] ~= TSEC then TSEC, TSECUS = t[1], t[1] * 1000000 end
  now = TSECUS + t[2]
end
return step(KEYS, 0, ARGV[1], tonumber(ARGV[2]), now, ARGV[4], tonumber(ARGV[5]), nil)
