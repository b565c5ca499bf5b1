-- floodgate redisstore step: decides one request on every limit of a
-- policy. Its keys are K[k0 + 1 .. k0 + #LIMITS], and for F and R the
-- operation's marker K[k0 + #LIMITS + 1]; op is T take, P peek, F refund,
-- R reset; cost; now in µs; taken, for F, the string "t,h1,...,hn,m" of
-- the take's instant t in µs, each limit's hold in ns (how long after t
-- the take held part of its state) and the marker's least TTL m in ms,
-- for R the marker's TTL in ms; slack in ms. C is nil for
-- a decision alone (GET, SET and DEL go to Redis), or the cache of a batch
-- (see batch.lua): the state of every key read or written so far in the
-- batch, each written once at its end. Reply: {taken, now, then per
-- limit: allowed, remaining, resetAfter µs, retryAfter µs (-1: never),
-- delay µs, resetAfter ns remainder, retryAfter ns remainder}, or an
-- error reply.
local function kget(C, key)
  if not C then return redis.call('GET', key) end
  local v = C.val[key]
  if v == nil then
    v = redis.pcall('GET', key)
    if type(v) == 'table' then return nil, v end
    C.val[key] = v
  end
  return v
end
local function kput(C, key, v, px)
  if not C then
    if v then redis.call('SET', key, v, 'PX', px) else redis.call('DEL', key) end
    return
  end
  if C.px[key] == nil then C.n = C.n + 1 C.order[C.n] = key end
  C.val[key] = v
  C.px[key] = px or false
end
-- put writes limit L's state s with a TTL until it has recovered plus the
-- slack, or deletes it when it is a key never seen or nothing of the TTL
-- is left. (A recovered key kept for the slack decides as a key never
-- seen, and a lagging caller exactly as the in-memory store, which keeps
-- recovered entries until it sweeps them, decides it.)
-- fresh reports whether s is L's state of a key never seen (core's zero
-- state).
local function fresh(L, s)
  local f = L.fresh()
  for j = 1, L.words do
    if s[j] ~= f[j] then return false end
  end
  return true
end
local function put(C, key, L, s, now, slack)
  local px = 0
  if not fresh(L, s) then px = ceil(imax(L.idle(s) - now, 0) / 1000) + slack end
  if px <= 0 then kput(C, key, false) else kput(C, key, encode(s, L.words), px) end
end
local function step(K, k0, op, cost, now, taken, slack, C)
  local n = #LIMITS
  if op == 'R' then
    -- The marker K[k0 + n + 1] names this reset, for taken ms: a copy of
    -- it (a client's retry) forgets nothing taken since.
    local ok = redis.pcall('SET', K[k0 + n + 1], '1', 'NX', 'PX', tonumber(taken))
    if type(ok) == 'table' and ok.err then return ok end
    if ok == false then return {0, now} end
    if not C then
      redis.call('DEL', unpack(K, k0 + 1, k0 + n))
    else
      for i = 1, n do kput(C, K[k0 + i], false) end
    end
    return {0, now}
  end
  local st, dirty = {}, {}
  for i = 1, n do
    local L = LIMITS[i]
    local v, e = kget(C, K[k0 + i])
    if e then return e end
    if v then
      local s = decode(v, L.words)
      if not s then
        return redis.error_reply('ERR floodgate: malformed limiter state at ' .. K[k0 + i])
      end
      st[i] = s
    else
      st[i] = L.fresh()
    end
  end
  if op == 'F' then
    local tk = decode(taken, n + 2)
    if not tk then return redis.error_reply('ERR floodgate: malformed refund') end
    -- The marker K[k0 + n + 1] names this refund: a client sending the
    -- command again (a retry after a lost reply) finds it and gives
    -- nothing back. It lives while the refund could give anything back,
    -- and at least tk[n + 2] ms.
    local px, give = tk[n + 2], false
    for i = 1, n do
      local rem = (tk[1] - now) * 1000 + tk[i + 1]
      if rem > 0 and tk[i + 1] > 0 then
        give, px = true, imax(px, ceil(rem / 1000000))
      end
    end
    if give then
      local ok = redis.pcall('SET', K[k0 + n + 1], '1', 'NX', 'PX', px)
      if type(ok) == 'table' and ok.err then return ok end
      give = ok ~= false
    end
    for i = 1, n do
      -- The ns left of the take's hold: nothing is given back after it,
      -- and never more than the take still holds before it.
      local rem = (tk[1] - now) * 1000 + tk[i + 1]
      -- core's: a limit in the zero state (a missing key) holds nothing to
      -- give back and is left as it is.
      if give and rem > 0 and tk[i + 1] > 0 and not fresh(LIMITS[i], st[i]) then
        LIMITS[i].refund(st[i], now, tk[1], cost, rem)
        dirty[i] = true
      end
    end
    op, cost = 'P', 1
  end
  local commit = op == 'T'
  if n == 1 then
    -- One limit: no intermediate tables.
    local L, s = LIMITS[1], st[1]
    local a, rem, reset, retry, delay, rr1, rr2 = L.take(s, now, cost, commit)
    local took, al = 0, 0
    if not a and retry ~= NEVER then
      -- core's: a limit that records denied attempts reports what it
      -- decides once it has.
      local o = L.denied(s, now, cost, commit)
      if o then
        a, rem, reset, retry, delay, rr1, rr2 = o[1], o[2], o[3], o[4], o[5], 0, 0
        if commit then dirty[1] = true end
      end
    elseif a and commit then
      dirty[1], took = true, 1
    end
    if a then al = 1 end
    if dirty[1] then put(C, K[k0 + 1], L, s, now, slack) end
    return {took, now, al, rem, reset, retry, delay, rr1 or 0, rr2 or 0}
  end
  local res, took = {}, 0
  do
    -- core's Policy.take: a denial is told to every limit (whichever
    -- denied it) unless some limit can never grant the cost; a limit that
    -- records it reports what it decides once it has.
    local all, never = true, false
    for i = 1, n do
      res[i] = {LIMITS[i].take(st[i], now, cost, false)}
      all = all and res[i][1]
      never = never or (not res[i][1] and res[i][4] == NEVER)
    end
    for i = 1, n do
      local L = LIMITS[i]
      if all then
        if commit then
          res[i] = {L.take(st[i], now, cost, true)}
          dirty[i] = true
        end
      else
        local o
        if not never then o = L.denied(st[i], now, cost, commit) end
        if o then
          res[i] = o
          if commit then dirty[i] = true end
        elseif res[i][1] then
          res[i] = {L.take(st[i], now, 0, false)}
        end
      end
    end
    if all and commit then took = 1 end
  end
  for i = 1, n do
    if dirty[i] then put(C, K[k0 + i], LIMITS[i], st[i], now, slack) end
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
end
