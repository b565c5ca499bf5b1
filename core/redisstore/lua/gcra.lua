-- GCRA (and LeakyBucket, which adds a shaping delay): one word, TAT.
-- iv: emission interval, tol: burst*iv, burst: units at once, free:
-- (NoDelay-1)*iv for LeakyBucket (nil for GCRA).
function ALG.gcra(iv, tol, burst, free)
  local A = {words = 1, drift = true, gcra = true, iv = iv, tol = tol, burst = burst, free = free}
  function A.fresh() return {0} end
  local function deny(tat, now, retry)
    local debt = nonneg(tat - now)
    return false, fdiv(nonneg(tol - debt), iv), debt, retry, 0
  end
  function A.take(st, now, cost, commit)
    local tat = st[1]
    if cost > burst then return deny(tat, now, NEVER) end
    local diff = nonneg(tat - now) + cost * iv -- (below 2^53 whatever now: no sum of instants)
    if diff > tol then return deny(tat, now, diff - tol) end
    if commit then st[1] = now + diff end
    local delay = 0
    if free and cost > 0 then delay = nonneg(nonneg(tat - now) - free) end
    return true, fdiv(tol - diff, iv), diff, 0, delay
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost, rem, remU)
    if cost > burst then cost = burst end
    st[1] = imax(st[1] - imin(cost * iv, remU), imin(st[1], now))
  end
  function A.idle(st) return st[1] end
  function A.shift(st, d) st[1] = st[1] - d end
  return A
end
