-- floodgate redisstore main: decides one request on every limit of a
-- policy. KEYS[i] is limit i's state; ARGV = op (T take, P peek, F refund,
-- R reset), cost, now (µs, or -1 to read Redis TIME), taken (µs), expiry
-- slack (ms). Reply: {taken, now, then per limit: allowed, remaining,
-- resetAfter µs, retryAfter µs (-1: never), delay µs, resetAfter ns
-- remainder, retryAfter ns remainder}.
local op = ARGV[1]
local cost = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local taken = tonumber(ARGV[4])
local slack = tonumber(ARGV[5])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local n = #LIMITS
if op == 'R' then
  redis.call('DEL', unpack(KEYS))
  return {0, now}
end
local st, dirty = {}, {}
for i = 1, n do
  local L = LIMITS[i]
  local v = redis.call('GET', KEYS[i])
  if v then
    local s = decode(v, L.words)
    if not s then
      return redis.error_reply('ERR floodgate: malformed limiter state at ' .. KEYS[i])
    end
    st[i] = s
  else
    st[i] = L.fresh()
  end
end
if op == 'F' then
  for i = 1, n do
    LIMITS[i].refund(st[i], now, taken, cost)
    dirty[i] = true
  end
  op, cost = 'P', 1
end
local commit = op == 'T'
if n == 1 then
  -- One limit: no intermediate tables.
  local L, s = LIMITS[1], st[1]
  local a, rem, reset, retry, delay, rr1, rr2 = L.take(s, now, cost, commit)
  local took, al = 0, 0
  if a then al = 1 end
  if commit then
    if a then dirty[1], took = true, 1
    elseif L.denied(s, now, cost) then dirty[1] = true end
  end
  if dirty[1] then
    local idle = L.idle(s)
    if idle <= now then
      redis.call('DEL', KEYS[1])
    else
      redis.call('SET', KEYS[1], encode(s, L.words), 'PX', ceil((idle - now) / 1000) + slack)
    end
  end
  return {took, now, al, rem, reset, retry, delay, rr1 or 0, rr2 or 0}
end
local res, took = {}, 0
do
  local all = true
  for i = 1, n do
    res[i] = {LIMITS[i].take(st[i], now, cost, false)}
    all = all and res[i][1]
  end
  for i = 1, n do
    local L = LIMITS[i]
    if all and commit then
      res[i] = {L.take(st[i], now, cost, true)}
      dirty[i] = true
    elseif not all and res[i][1] then
      res[i] = {L.take(st[i], now, 0, false)}
    elseif not all and commit then
      if L.denied(st[i], now, cost) then dirty[i] = true end
    end
  end
  if all and commit then took = 1 end
end
for i = 1, n do
  if dirty[i] then
    local L = LIMITS[i]
    local idle = L.idle(st[i])
    if idle <= now then
      redis.call('DEL', KEYS[i])
    else
      redis.call('SET', KEYS[i], encode(st[i], L.words), 'PX', ceil((idle - now) / 1000) + slack)
    end
  end
end
local out = {took, now}
for i = 1, n do
  local r = res[i]
  local a = 0
  if r[1] then a = 1 end
  local k = 2 + (i - 1) * 7
  out[k + 1], out[k + 2], out[k + 3], out[k + 4] = a, r[2], r[3], r[4]
  out[k + 5], out[k + 6], out[k + 7] = r[5], r[6] or 0, r[7] or 0
end
return out
