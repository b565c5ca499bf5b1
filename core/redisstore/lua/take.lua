-- floodgate redisstore take: decides one take (see step.lua), the common
-- request, with as few arguments as it needs (each costs Redis a string):
-- ARGV = [cost [, now [, slack]]]: cost 1, now -1 (read Redis TIME) and
-- slack 0 (ms) when left out.
local cost, now, slack = 1, -1, 0
local n = #ARGV
if n > 0 then
  cost = ARGV[1] + 0
  if n > 1 then now = ARGV[2] + 0 end
  if n > 2 then slack = ARGV[3] + 0 end
end
ONTIME = now < 0
if now < 0 then
  local t = redis.call('TIME')
  if t[1] ~= TSEC then TSEC, TSECUS = t[1], t[1] * 1000000 end
  now = TSECUS + t[2]
end
if NL == 1 then return take1(KEYS[1], cost, now, slack) end
return step(KEYS, 0, 'T', cost, now, nil, slack, nil)
