-- Backoff (core.Backoff): st[1] latest failure, st[2] the latest before
-- the latest take, st[3] window start, st[4] failures in the window, st[5]
-- lockouts set since the key was forgiven, st[6] lock end. All µs; the
-- counters saturate at 2^62 as core's do (unreachable in practice: 2^53
-- is already 2^21 takes of the largest cost).
function ALG.backoff(free, window, base, mx, forgive)
  local A = {words = 6, drift = true}
  local SAT = 4611686018427387904
  function A.fresh() return {0, 0, 0, 0, 0, 0} end
  local function fresh(st) return st[4] == 0 and st[5] == 0 end
  -- lock is the k-th lockout (k from 0): min(base*2^k, max).
  local function lock(k)
    if k >= 62 then return mx end
    local p = 2 ^ k
    if base > floor(mx / p) then return mx end
    return base * p
  end
  local function idleAt(st)
    local at = st[1] + forgive
    if st[5] == 0 then at = imin(at, st[3] + window) end
    return imax(at, st[6])
  end
  -- view is the state as it stands at now (clamped to the latest failure):
  -- a copy, all zero when the key is fresh, its count 0 once its window
  -- has ended.
  local function view(st, now)
    local v = {0, 0, 0, 0, 0, 0}
    if fresh(st) then return v, now end
    now = imax(now, st[1])
    if now >= idleAt(st) then return v, now end
    for i = 1, 6 do v[i] = st[i] end
    if now - v[3] >= window then v[4] = 0 end
    return v, now
  end
  local function remaining(v, now)
    if v[6] > now then return 0 end
    return imax(free - v[4], 0)
  end
  local function resetAfter(v, now)
    if fresh(v) then return 0 end
    return nonneg(idleAt(v) - now)
  end
  function A.take(st, now, cost, commit)
    -- core's: decided at the clamped instant, waits measured from raw.
    local raw = now
    local v
    v, now = view(st, now)
    local rem, reset = remaining(v, now), resetAfter(v, raw)
    if cost == 0 then return true, rem, reset, 0, 0 end
    if cost > free then return false, rem, reset, NEVER, 0 end
    if cost > 1 and v[4] + cost - 1 > free then
      -- core's: cost c is c failures of cost 1, which pass up to the one
      -- that sets a lock; the whole cost waits for the count to restart.
      return false, rem, reset, imax(v[6], imin(v[3] + window, idleAt(v))) - raw, 0
    end
    if v[6] > now then return false, rem, reset, v[6] - raw, 0 end
    local n = v[4]
    if n == 0 then v[3] = now end
    v[4] = imin(n + cost, SAT)
    local e = v[4] - imax(n, free)
    if e > 0 then
      v[6] = now + lock(v[5] + e - 1)
      v[5] = imin(v[5] + e, SAT)
    end
    v[2], v[1] = st[1], now
    if fresh(st) or now >= idleAt(st) then v[2] = now end
    rem, reset = remaining(v, now), resetAfter(v, raw)
    if commit then for i = 1, 6 do st[i] = v[i] end end
    return true, rem, reset, 0, 0
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost)
    if fresh(st) then return end
    now = imax(now, st[1])
    if now >= idleAt(st) or taken < st[3] or st[4] == 0 then return end
    local n = st[4]
    local c = imin(imax(cost, 0), n)
    local e = imax(n - imax(n - c, free), 0)
    st[4], st[5] = n - c, imax(st[5] - e, 0)
    -- Surely the latest take only when alone at its instant (see core).
    if taken == st[1] and (st[2] ~= taken or n - c <= free) then
      -- The lock this take set is lifted: the one before it had ended by
      -- the take's instant.
      if e > 0 then st[6] = st[1] end
      st[1] = st[2]
    end
    if fresh(st) then for i = 1, 6 do st[i] = 0 end end
  end
  function A.idle(st)
    if fresh(st) then return -1 end
    return idleAt(st)
  end
  function A.shift(st, d)
    if st[1] ~= 0 then st[1] = st[1] - d end
    if st[2] ~= 0 then st[2] = st[2] - d end
    if st[3] ~= 0 then st[3] = st[3] - d end
    if st[6] ~= 0 then st[6] = st[6] - d end
  end
  return A
end
