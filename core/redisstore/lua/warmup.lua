-- WarmUp (Guava's SmoothWarmingUp): st[1], st[2] the next free instant as
-- whole µs and a ns remainder (admissions move it by whole ns), st[3] the
-- stored permits (a double). Times inside are float ns as in core; the
-- store refuses warm-ups and cold intervals of 2^52 ns or more, so every
-- ns offset below is exact.
function ALG.warmup(limit, stable, threshold, maxP, slope, coolDown)
  local A = {words = 3, drift = true}
  local HI, MAXSPAN = 9007199254740992, 1152921504606846976
  function A.fresh() return {0, 0, maxP} end
  -- rel returns (nu µs + nr ns) - now µs, in ns.
  local function rel(nu, nr, now) return (nu - now) * 1000 + nr end
  local function storedAfter(stored, e) -- storedAt with now - next = e ns
    if e > 0 then
      stored = stored + e / coolDown
      if stored > maxP then stored = maxP end
    end
    return stored
  end
  local function interval(above) return stable + above * slope end
  local function charge(stored, cost)
    local spend = imin(cost, stored)
    local k, t = spend, 0.0
    local above = stored - threshold
    if above > 0 then
      local top = imin(above, k)
      t = top * (interval(above) + interval(above - top)) / 2
      k = k - top
    end
    t = t + stable * (k + (cost - spend))
    local d = ceil(t)
    if not (d < MAXSPAN) then return MAXSPAN, spend end
    return d, spend
  end
  -- coldIn is the ns from the next free instant until the store is full.
  local function coldIn(stored)
    if stored >= maxP then return 0 end
    local guess = HI
    local g = ceil((maxP - stored) * coolDown)
    if g < guess then guess = g end
    return firstTrue(0, guess, HI, function(e) return storedAfter(stored, e) >= maxP end)
  end
  function A.take(st, now, cost, commit)
    local nu, nr, stored = st[1], st[2], st[3]
    local ahead = rel(nu, nr, now) -- next - now, ns
    if cost > limit or ahead > 0 then
      local ru, rr = split(nonneg(ahead + coldIn(stored)))
      local tu, tr = split(ahead)
      local rem = 0
      if cost > limit then
        tu, tr = NEVER, 0
        if ahead <= 0 then rem = 1 end
      end
      return false, rem, ru, tu, 0, rr, tr
    end
    if cost == 0 then
      -- core's: the key as it stands, cold again when its store is full.
      local ru, rr = split(nonneg(ahead + coldIn(stored)))
      return true, 1, ru, 0, 0, rr, 0
    end
    stored = storedAfter(stored, -ahead)
    local wait, spend = charge(stored, cost)
    stored = stored - spend
    local wu, wr = split(wait)
    if commit then st[1], st[2], st[3] = now + wu, wr, stored end
    local rem = 0
    if wait <= 0 then rem = 1 end
    local ru, rr = split(wait + coldIn(stored))
    -- An admission's retry slot carries its hold: the wait it charged.
    return true, rem, ru, wu, 0, rr, wr
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost, rem)
    local nu, nr, stored = st[1], st[2], st[3]
    cost = imin(cost, limit)
    local ahead = rel(nu, nr, now)
    if ahead < 0 then
      st[1], st[2], st[3] = now, 0, imin(maxP, storedAfter(stored, -ahead) + cost)
      return
    end
    local back = imin(maxP, stored + cost)
    local wait
    if stored > 0 then wait = charge(back, cost) else wait = charge(0, cost) end
    local d = ahead - imin(wait, rem) -- (next - wait) - now
    if d < 0 then d = 0 end
    local du, dr = split(d)
    st[1], st[2], st[3] = now + du, dr, back
  end
  function A.idle(st)
    return st[1] + cdiv(st[2] + coldIn(st[3]), 1000)
  end
  -- shift moves the next free instant back by d µs (settle): the stored
  -- permits, counted from it, stand to now as they stood to seen.
  function A.shift(st, d) st[1] = st[1] - d end
  return A
end
