-- floodgate redisstore step: decides one request on every limit of a
-- policy. Its keys are K[k0 + 1 .. k0 + #LIMITS], and for F and R the
-- operation's marker K[k0 + #LIMITS + 1]; op is T take, P peek, F refund,
-- R reset; cost; now in µs; taken, for F, the string "t,h1,...,hn,m" of
-- the take's instant t in µs, each limit's hold in ns (how long after t
-- the take held part of its state) and the marker's least TTL m in ms,
-- for R the marker's TTL in ms; slack in ms. C is nil for a decision
-- alone (GET, SET and DEL go to Redis), or the cache of a batch (see
-- batch.lua): the state of every key read or written so far in the
-- batch, each written once at its end. Reply: a record (RFMT) of
-- 2 + 7·#LIMITS little-endian doubles: taken, now, then per limit allowed,
-- remaining, resetAfter µs, retryAfter µs (-1: never), delay µs,
-- resetAfter ns remainder, retryAfter ns remainder; for a take on a
-- policy of one GCRA or LeakyBucket limit, a short record (CFMT) of two:
-- the outcome o, then now, where o >= 0 is an admission whose TAT is now +
-- o, and o < 0 a denial whose debt (TAT - now, at least 0) is -o - 1: the
-- store computes the rest as gcra.lua would (packing seven numbers more
-- costs Redis more than the whole decision); or an error reply.
local NL = #LIMITS
local RFMT = '<' .. srep('d', 2 + 7 * NL)
local CFMT = '<c0dd'
for i = 1, NL do codec(LIMITS[i]) end
-- fresh reports whether s is L's state of a key never seen (core's zero
-- state).
local function fresh(L, s)
  local z = L.zero
  for j = 1, L.words do
    if s[j] ~= z[j] then return false end
  end
  return true
end
-- kget returns limit L's state at key (a fresh one for a missing key), its
-- born, exp and seen (nil for a missing key), or nil and an error reply. A
-- batch reads each key once: C.rec holds its record (false: no state).
local function kget(C, key, L)
  local v
  if C then
    local r = C.rec[key]
    if r then return r.s, r.born, r.exp, r.seen end
    if r == false then return L.fresh() end
    v = redis.pcall('GET', key)
    if type(v) == 'table' then return nil, v end
    if not v then
      C.rec[key] = false
      return L.fresh()
    end
  else
    v = redis.call('GET', key)
    if not v then return L.fresh() end
  end
  local s, born, exp, seen = decode(L, v)
  if not s then
    return nil, redis.error_reply('ERR floodgate: malformed limiter state at ' .. key)
  end
  if C then C.rec[key] = {s = s, born = born, exp = exp, seen = seen, L = L} end
  return s, born, exp, seen
end
-- written marks key to be written (SET or DEL) at the batch's end.
local function written(C, key)
  if not C.w[key] then
    C.w[key] = true
    C.n = C.n + 1
    C.order[C.n] = key
  end
end
-- extra is the headroom, in ms, of a new TTL of a limit whose recovery
-- moves with every take, span µs from now: an eighth of the span for a
-- key new to Redis, the whole span for one already there (exp, its expiry
-- as read, not nil). A key taken again and again gets a new TTL once its
-- recovery has moved past the last one's end (SET PX costs Redis more
-- than SET KEEPTTL), not at every take, while a flood of new keys, each
-- taken once, outlives its recovery by an eighth of its span at most,
-- and no key by more than its span.
local function extra(span, exp)
  if exp then return floor(span / 1000) end
  return floor(span / 8000)
end
-- put writes limit L's state s, born at born, with a TTL until it has
-- recovered plus the slack, or deletes it when it is a key never seen or
-- nothing of the TTL is left. (A recovered key kept for the slack decides
-- as a key never seen, and a lagging caller exactly as the in-memory
-- store, which keeps recovered entries until it sweeps them, decides it.)
-- exp is the key's as read (nil for a missing key): when it covers the TTL
-- needed, the key keeps its TTL (SET KEEPTTL costs Redis half a SET PX);
-- otherwise it gets a new one, which for the limits whose recovery moves
-- with every take (L.drift) runs longer by the headroom (see extra), so
-- that a busy key gets a new TTL now and then, not at every take.
-- ttl returns the TTL to set in ms (nil: keep the key's, 0 or less: delete
-- the key) and the key's exp after the write.
local function ttl(L, s, now, slack, exp)
  if fresh(L, s) then return 0, exp end
  local span = imax(L.idle(s) - now, 0)
  local px = ceil(span / 1000) + slack
  if px > 0 then
    if exp and exp >= now + px * 1000 then return nil, exp end
    if L.drift then px = px + extra(span, exp) end
    exp = now + (px - 1) * 1000
  end
  return px, exp
end
local function put(C, key, L, s, now, slack, born, exp, seen)
  local px
  px, exp = ttl(L, s, now, slack, exp)
  seen = stamp(now, seen)
  if not C then
    if px == nil then
      redis.call('SET', key, encode(L, s, born, exp, seen), 'KEEPTTL')
    elseif px > 0 then
      redis.call('SET', key, encode(L, s, born, exp, seen), 'PX', sformat('%d', px))
    elseif exp then
      redis.call('DEL', key)
    end
    return
  end
  written(C, key)
  if px ~= nil and px <= 0 then
    C.rec[key] = false
    return
  end
  -- A TTL set earlier in the batch, which exp stands for, is kept.
  local r = C.rec[key]
  if px == nil and r then px = r.px end
  C.rec[key] = {s = s, born = born, exp = exp, seen = seen, px = px, L = L}
end
-- take1 is step for a take alone (no batch) on a policy of one limit:
-- the same decision and writes, with as few Lua calls as it can.
local L1, rcall = LIMITS[1], redis.call
local W1, F1 = L1.words, L1.fmt
local take1
take1 = function(key, cost, now, slack)
  local L = L1
  local v = rcall('GET', key)
  local s, born, exp, seen
  if not v then
    s = L.fresh()
  elseif W1 == 1 and #v == 32 then
    local x
    x, born, exp, seen = sunpack(F1, v)
    s = {x}
  else
    s, born, exp, seen = decode(L, v)
    if not s then
      return redis.error_reply('ERR floodgate: malformed limiter state at ' .. key)
    end
  end
  -- A state settle moves is written whatever the decision, with a new
  -- TTL (exp as if it had run out).
  local moved = v and settle(L, s, now, seen)
  if moved then exp, born = now, reborn(born, seen) end
  local a, rem, reset, retry, delay, rr1, rr2 = L.take(s, now, cost, true)
  local took, al = 0, 0
  if a then
    took, al = 1, 1
    if not exp or (now < born and not ONTIME) then born = now end
  elseif retry ~= NEVER then
    local o = L.denied(s, now, cost, true)
    if o then
      a, rem, reset, retry, delay, rr1, rr2 = o[1], o[2], o[3], o[4], o[5], 0, 0
      if a then al = 1 end
      if not exp then born = now end
    elseif not moved then
      return spack(RFMT, 0, now, 0, rem, reset, retry, delay, rr1 or 0, rr2 or 0)
    end
  elseif not moved then
    return spack(RFMT, 0, now, 0, rem, reset, retry, delay, rr1 or 0, rr2 or 0)
  end
  put(nil, key, L, s, now, slack, born, exp, seen)
  return spack(RFMT, took, now, al, rem, reset, retry, delay, rr1 or 0, rr2 or 0)
end
-- gtake is take1 for GCRA and LeakyBucket (gcra.lua's take and put,
-- inlined): a decision's common case, in as few Lua steps as it can, alone
-- (C nil) or in a batch (C its cache). Its reply is a short record (see the
-- head of this file) packed with format f after the leading value pre (a
-- batch's part: 'c' and the record). In a batch, a key met for the first
-- time, and not in the cache, is read and written at once (C.thru marks
-- it), as alone: a batch of distinct keys builds no cache; one met again
-- is read again into the cache and written at the batch's end.
local gtake, gbatch, TAKE
if NL == 1 and L1.gcra then
  local IV, TOL, BURST = L1.iv, L1.tol, L1.burst
  gtake = function(C, key, cost, now, slack, f, pre)
    local tat, born, exp, seen, r = 0, now, nil, nil, nil
    local cache = false
    if C then
      r = C.rec[key]
      if r ~= nil or C.thru[key] then
        cache = true
      else
        C.thru[key] = true
      end
    end
    if r then
      tat, born, exp, seen = r.s[1], r.born, r.exp, r.seen
    elseif r == nil then
      local v
      if C then
        v = redis.pcall('GET', key)
        if type(v) == 'table' then return v end
      else
        v = rcall('GET', key)
      end
      if v then
        if #v ~= 32 then
          return redis.error_reply('ERR floodgate: malformed limiter state at ' .. key)
        end
        tat, born, exp, seen = sunpack(F1, v)
        if cache then
          r = {s = {tat}, born = born, exp = exp, seen = seen, L = L1}
          C.rec[key] = r
        end
      elseif cache then
        C.rec[key] = false
      end
    end
    -- settle, inlined: on Redis TIME, a TAT written at seen, after now (a
    -- clock that went back), moves back by seen - now and is written, with
    -- a new TTL, whatever the decision.
    local moved = ONTIME and seen and seen > now
    if moved then tat, exp, born = tat - (seen - now), now, reborn(born, seen) end
    local debt = tat - now
    if debt < 0 then debt = 0 end
    local diff = debt + cost * IV
    local deny = cost > BURST or diff > TOL
    if deny then
      if not moved then return spack(f, pre, -debt - 1, now) end
      diff = debt -- the state written: TAT as settled
    elseif not exp or (now < born and not ONTIME) then
      born = now
    end
    -- put: the key lives until TAT (now + diff) plus the slack, or goes
    -- when that is now (a take of 0 on a recovered key: core's zero cost).
    local px = ceil(diff / 1000) + slack
    if px <= 0 then
      if cache then
        written(C, key)
        C.rec[key] = false
      elseif exp then
        rcall('DEL', key)
      end
      return spack(f, pre, diff, now)
    elseif exp and exp >= now + px * 1000 then
      px = nil
    else
      px = px + extra(diff, exp)
      exp = now + (px - 1) * 1000
    end
    seen = stamp(now, seen)
    if cache then
      written(C, key)
      if r then
        r.s[1], r.born, r.exp, r.seen = now + diff, born, exp, seen
        if px then r.px = px end -- else a TTL set earlier in the batch stands
      else
        C.rec[key] = {s = {now + diff}, born = born, exp = exp, seen = seen, px = px, L = L1}
      end
    elseif px then
      rcall('SET', key, spack(F1, now + diff, born, exp, seen), 'PX', sformat('%d', px))
    else
      rcall('SET', key, spack(F1, now + diff, born, exp, seen), 'KEEPTTL')
    end
    if deny then return spack(f, pre, -debt - 1, now) end
    return spack(f, pre, diff, now)
  end
  take1 = function(key, cost, now, slack) return gtake(nil, key, cost, now, slack, CFMT, '') end
  -- TAKE is take.lua for this policy (the library calls it instead):
  -- gtake alone, inlined, with take.lua's arguments and Redis TIME, so
  -- that the common decision costs Redis as few Lua calls as it can.
  local SFMT = '<dd' -- a short record, as CFMT with no leading value
  TAKE = function(K, A)
    local cost, now, slack = 1, -1, 0
    local n = #A
    if n > 0 then
      cost = A[1] + 0
      if n > 1 then now = A[2] + 0 end
      if n > 2 then slack = A[3] + 0 end
    end
    ONTIME = now < 0
    if now < 0 then
      local t = rcall('TIME')
      if t[1] ~= TSEC then TSEC, TSECUS = t[1], t[1] * 1000000 end
      now = TSECUS + t[2]
    end
    local key = K[1]
    local v = rcall('GET', key)
    local tat, born, exp, seen = 0, now, nil, nil
    if v then
      if #v ~= 32 then
        return redis.error_reply('ERR floodgate: malformed limiter state at ' .. key)
      end
      tat, born, exp, seen = sunpack(F1, v)
    end
    local moved = ONTIME and seen and seen > now -- settle, inlined (see gtake)
    if moved then tat, exp, born = tat - (seen - now), now, reborn(born, seen) end
    local debt = tat - now
    if debt < 0 then debt = 0 end
    local diff = debt + cost * IV
    local deny = cost > BURST or diff > TOL
    if deny then
      if not moved then return spack(SFMT, -debt - 1, now) end
      diff = debt
    elseif not exp or (now < born and not ONTIME) then
      born = now
    end
    seen = stamp(now, seen)
    local px = diff / 1000 -- ceil(diff / 1000), without a call
    local q = px - px % 1
    if q < px then q = q + 1 end
    px = q + slack
    if px <= 0 then
      if exp then rcall('DEL', key) end
    elseif exp and exp >= now + px * 1000 then
      rcall('SET', key, spack(F1, now + diff, born, exp, seen), 'KEEPTTL')
    else
      px = px + extra(diff, exp)
      rcall('SET', key, spack(F1, now + diff, born, now + (px - 1) * 1000, seen), 'PX', sformat('%d', px))
    end
    if deny then return spack(SFMT, -debt - 1, now) end
    return spack(SFMT, diff, now)
  end
  -- gbatch is batch.lua for a batch of takes on Redis TIME only (ARGV =
  -- slack, then each take's cost: one argument per key), the common
  -- batch: the same decisions, replies and writes as gtake's, one take
  -- after another, with one MGET for every key and one write per key
  -- (SET, or DEL) at the batch's end, with its last state. A key MGET
  -- finds no string at is read again, alone: a missing key, or one of
  -- another type (an error, as alone). The state of the i-th key is kept
  -- at the index of its first occurrence: TAT in T (first its value, as
  -- read), born in GB, exp in GE (false: no key), and in GP the TTL to set
  -- (0: delete the key, false: keep its TTL, nil: not written); GF maps
  -- each key met to that index. GF, GB, GE, GP and GO (the reply's
  -- values) live as long as the library and are cleared at each call's
  -- start and end: a batch allocates no table of its own (Redis's Lua
  -- collector's work grows with every byte a call allocates).
  local GFMT, GBFMT = {}, '<c1dd'
  local GF, GB, GE, GS, GP, GO = {}, {}, {}, {}, {}, {}
  gbatch = function(K, A)
    local n = #K
    for i = 1, n do GF[K[i]], GP[i] = nil, nil end
    local T = rcall('MGET', unpack(K))
    local tm = rcall('TIME')
    if tm[1] ~= TSEC then TSEC, TSECUS = tm[1], tm[1] * 1000000 end
    local now, slack = TSECUS + tm[2], A[1] + 0
    local errs, j = false, 0
    ONTIME = true
    for i = 1, n do
      local key, c, cost = K[i], A[i + 1], 1
      if c ~= '1' then cost = c + 0 end
      local f, o = GF[key], nil
      local tat, born, exp, seen
      if f then
        tat, born, exp, seen = T[f], GB[f], GE[f], GS[f]
      else
        local v = T[i]
        if not v then
          v = redis.pcall('GET', key)
          if type(v) == 'table' then o = 'e' .. ssub(v.err, 1, 200) .. '\0' end
        end
        if o then
          -- an error: read again at the key's next occurrence
        elseif not v then
          f, tat, born, exp, seen = i, 0, now, false, false
        elseif #v == 32 then
          f = i
          tat, born, exp, seen = sunpack(F1, v)
        else
          o = 'e' .. ssub('ERR floodgate: malformed limiter state at ' .. key, 1, 200) .. '\0'
        end
        if f then GF[key], T[f], GB[f], GE[f], GS[f] = f, tat, born, exp, seen end
      end
      if o then
        errs = true
      else
        local moved = seen and seen > now -- settle, inlined (see gtake)
        if moved then tat, exp, born = tat - (seen - now), now, reborn(born, seen) end
        local debt = tat - now
        if debt < 0 then debt = 0 end
        local diff = debt + cost * IV
        local deny = cost > BURST or diff > TOL
        if deny and moved then diff = debt end
        if deny and not moved then
          o = -debt - 1
        else
          if not deny and not exp then born = now end
          local px = ceil(diff / 1000) + slack
          if px <= 0 then
            T[f], GB[f], GE[f], GS[f], GP[f] = 0, now, false, false, 0
          else
            if not (exp and exp >= now + px * 1000) then
              px = px + extra(diff, exp)
              exp = now + (px - 1) * 1000
              GP[f] = px
            elseif not GP[f] then
              GP[f] = false
            end
            T[f], GB[f], GE[f], GS[f] = now + diff, born, exp, now
          end
          o = diff
          if deny then o = -debt - 1 end
        end
      end
      GO[j + 1], GO[j + 2], GO[j + 3] = 'c', o, now
      j = j + 3
    end
    for i = 1, n do
      local px = GP[i]
      if px == 0 then
        rcall('DEL', K[i])
      elseif px then
        rcall('SET', K[i], spack(F1, T[i], GB[i], GE[i], now), 'PX', sformat('%d', px))
      elseif px == false then
        rcall('SET', K[i], spack(F1, T[i], GB[i], GE[i], now), 'KEEPTTL')
      end
      GF[K[i]], GP[i], GS[i] = nil, nil, nil
    end
    if not errs then
      local f = GFMT[n]
      if not f then
        f = '<' .. srep('c1dd', n)
        GFMT[n] = f
      end
      return spack(f, unpack(GO, 1, j))
    end
    local parts = {}
    for i = 1, n do
      local o = GO[3 * i - 1]
      if type(o) == 'string' then parts[i] = o else parts[i] = spack(GBFMT, 'c', o, now) end
    end
    return tconcat(parts)
  end
end
-- step decides the request; see the file's head.
local function step(K, k0, op, cost, now, taken, slack, C)
  local n = NL
  if op == 'R' then
    -- The marker K[k0 + n + 1] names this reset, for taken ms: a copy of
    -- it (a client's retry) forgets nothing taken since.
    local ok = redis.pcall('SET', K[k0 + n + 1], '1', 'NX', 'PX', tonumber(taken))
    if type(ok) == 'table' and ok.err then return ok end
    if ok ~= false then
      if not C then
        redis.call('DEL', unpack(K, k0 + 1, k0 + n))
      else
        for i = 1, n do
          written(C, K[k0 + i])
          C.rec[K[k0 + i]] = false
        end
      end
    end
    local out = {0, now}
    for i = 3, 2 + 7 * n do out[i] = 0 end
    return spack(RFMT, unpack(out))
  end
  if n == 1 and op == 'T' then
    if gtake then return gtake(C, K[k0 + 1], cost, now, slack, CFMT, '') end
    -- One limit, a take: no intermediate tables.
    local L, key = LIMITS[1], K[k0 + 1]
    local s, born, exp, seen = kget(C, key, L)
    if not s then return born end
    local moved = exp and settle(L, s, now, seen)
    if moved then exp, born = now, reborn(born, seen) end -- written, with a new TTL, whatever the decision
    local a, rem, reset, retry, delay, rr1, rr2 = L.take(s, now, cost, true)
    local took, al = 0, 0
    if a then
      took, al = 1, 1
      if not exp or (now < born and not ONTIME) then born = now end
      put(C, key, L, s, now, slack, born, exp, seen)
    elseif retry ~= NEVER then
      -- core's: a limit that records denied attempts reports what it
      -- decides once it has.
      local o = L.denied(s, now, cost, true)
      if o then
        a, rem, reset, retry, delay, rr1, rr2 = o[1], o[2], o[3], o[4], o[5], 0, 0
        if a then al = 1 end
        if not exp then born = now end
        put(C, key, L, s, now, slack, born, exp, seen)
      elseif moved then
        put(C, key, L, s, now, slack, born, exp, seen)
      end
    elseif moved then
      put(C, key, L, s, now, slack, born, exp, seen)
    end
    return spack(RFMT, took, now, al, rem, reset, retry, delay, rr1 or 0, rr2 or 0)
  end
  local st, born, exp, seens, dirty = {}, {}, {}, {}, {}
  for i = 1, n do
    local s, b, e, seen = kget(C, K[k0 + i], LIMITS[i])
    if not s then return b end
    st[i], born[i], exp[i], seens[i] = s, b, e, seen
  end
  -- settle moves the states in place, which in a batch are its cache's
  -- (see kget): only once nothing can fail (a key, a refund's argument or
  -- marker), as a request that fails leaves the keys as they were.
  local tk, remU, remN, tt, px, give
  if op == 'F' then
    tk = decnums(taken, n + 2)
    if not tk then return redis.error_reply('ERR floodgate: malformed refund') end
    -- The marker K[k0 + n + 1] names this refund: a client sending the
    -- command again (a retry after a lost reply) finds it and gives
    -- nothing back. It lives while the refund could give anything back,
    -- and at least tk[n + 2] ms.
    px, give = tk[n + 2], false
    -- What each limit's hold has left after now, in whole µs (remU) and
    -- ns (remN): a hold of over 2^53 ns (104 days) is not exact in a
    -- double, so its decimal is split at the µs.
    remU, remN, tt = {}, {}, {}
    local pos = sfind(taken, ',', 1, true) + 1
    for i = 1, n do
      local c = sfind(taken, ',', pos, true)
      local h = ssub(taken, pos, c - 1)
      pos = c + 1
      local hu, hn = 0, 0
      -- The take's instant, on the clock of the state it is given back
      -- to (see retaken).
      tt[i] = retaken(LIMITS[i], tk[1], now, exp[i], seens[i])
      if not tt[i] then tk[i + 1] = 0 end
      if tk[i + 1] > 0 then
        if #h > 3 then hu, hn = tonumber(ssub(h, 1, -4)), tonumber(ssub(h, -3)) else hn = tonumber(h) end
      end
      remU[i], remN[i] = (tt[i] or tk[1]) - now + hu, hn
      if tk[i + 1] > 0 and (remU[i] > 0 or (remU[i] == 0 and hn > 0)) then
        local ms = fdiv(remU[i], 1000)
        if remU[i] - ms * 1000 > 0 or hn > 0 then ms = ms + 1 end
        give, px = true, imax(px, ms)
      end
    end
    if give then
      local ok = redis.pcall('SET', K[k0 + n + 1], '1', 'NX', 'PX', px)
      if type(ok) == 'table' and ok.err then return ok end
      give = ok ~= false
    end
  end
  for i = 1, n do
    if exp[i] and settle(LIMITS[i], st[i], now, seens[i]) then
      exp[i], dirty[i] = now, true -- written, with a new TTL, whatever the op
      born[i] = reborn(born[i], seens[i])
    end
  end
  if op == 'F' then
    for i = 1, n do
      -- The time left of the take's hold: nothing is given back after it,
      -- and never more than the take still holds before it.
      local ru, rn = remU[i], remN[i]
      -- core's: a limit in the zero state (a missing key) holds nothing to
      -- give back and is left as it is; nor does a state created after
      -- the take (the key was reset, or evicted, and taken again since),
      -- which the take's cost is not part of.
      if give and tk[i + 1] > 0 and (ru > 0 or (ru == 0 and rn > 0)) and exp[i] and born[i] <= tk[1] and not fresh(LIMITS[i], st[i]) then
        LIMITS[i].refund(st[i], now, tt[i], cost, ru * 1000 + rn, ru)
        dirty[i] = true
      end
    end
    op, cost = 'P', 1
  end
  local commit = op == 'T'
  local res, took = {}, 0
  if n == 1 then
    local L, s = LIMITS[1], st[1]
    res[1] = {L.take(s, now, cost, false)}
    if not res[1][1] and res[1][4] ~= NEVER then
      local o = L.denied(s, now, cost, false)
      if o then res[1] = o end
    end
  else
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
          if exp[i] and now < born[i] and not ONTIME then born[i] = now end
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
    if dirty[i] then
      if not exp[i] then born[i] = now end
      put(C, K[k0 + i], LIMITS[i], st[i], now, slack, born[i], exp[i], seens[i])
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
  return spack(RFMT, unpack(out))
end
-- part is a batch's reply for one request (see batch.lua).
local CBFMT = '<c1dd'
local function part(K, k0, op, cost, now, taken, slack, C)
  local r
  if gtake and op == 'T' then
    r = gtake(C, K[k0 + 1], cost, now, slack, CBFMT, 'c')
    if type(r) ~= 'table' then return r end
  else
    r = step(K, k0, op, cost, now, taken, slack, C)
  end
  if type(r) == 'table' then return 'e' .. ssub(r.err, 1, 200) .. '\0' end
  return 'r' .. r
end
