-- RollingWindow: st[1] index of the newest period written, st[2..n+1] the
-- counts of periods st[1]-n+1 .. st[1], period p at st[2 + p mod n], and
-- st[n+2] their sum (core's layout: the window's units at the newest
-- period without summing n counts).
function ALG.rollingwindow(limit, pcap, period, n)
  local A = {words = n + 2}
  local T = n + 2
  function A.fresh() return zeros(n + 2) end
  local function bi(p)
    local m = fmod(p, n)
    if m < 0 then m = m + n end
    return 2 + m
  end
  local function empty(st) return st[T] == 0 end
  local function view(st, now)
    local idx = st[1]
    local p = floor(now / period)
    if p * period > now then p = p - 1 elseif (p + 1) * period <= now then p = p + 1 end
    if p < idx and not empty(st) then p = idx end
    local first = imax(p, idx) - n + 1
    local sum, cur = 0, 0
    if p <= idx then
      sum = st[T] -- the whole ring is in the window
    else
      for q = first, idx do sum = sum + st[bi(q)] end
    end
    if p == idx then cur = st[bi(idx)] end
    return p, first, sum, cur
  end
  local function newestEnd(st, first)
    for q = st[1], first, -1 do
      if st[bi(q)] > 0 then return (q + n) * period end
    end
    return 0
  end
  local function firstAdmit(st, p, sum, cost)
    local idx = st[1]
    for k = 1, n - 1 do
      local q = p - n + k
      if q > idx - n and q <= idx then sum = sum - st[bi(q)] end
      if cost <= limit - sum then return (p + k) * period end
    end
    return (p + n) * period
  end
  function A.take(st, now, cost, commit)
    local p, first, sum, cur = view(st, now)
    if cost > limit - sum or cost > pcap - cur then
      local reset, retry = 0, NEVER
      local e = newestEnd(st, first)
      if e ~= 0 then reset = nonneg(e - now) end
      if cost <= pcap then retry = firstAdmit(st, p, sum, cost) - now end
      return false, imax(imin(limit - sum, pcap - cur), 0), reset, retry, 0
    end
    if cost == 0 then
      -- core's: the window as it stands, its newest units leaving at e.
      local reset, e = 0, newestEnd(st, first)
      if e ~= 0 then reset = nonneg(e - now) end
      return true, imin(limit - sum, pcap - cur), reset, 0, 0
    end
    if commit then
      local idx = st[1]
      if p - idx >= n or p < idx then
        for i = 2, n + 2 do st[i] = 0 end
      else
        for q = idx + 1, p do
          local b = bi(q)
          st[T] = st[T] - st[b]
          st[b] = 0
        end
      end
      st[1] = p
      st[bi(p)] = cur + cost
      st[T] = st[T] + cost
    end
    return true, imin(limit - sum, pcap - cur) - cost, (p + n) * period - now, 0, 0
  end
  function A.denied() return false end
  function A.refund(st, now, taken, cost)
    local t = floor(taken / period)
    if t * period > taken then t = t - 1 elseif (t + 1) * period <= taken then t = t + 1 end
    local idx = st[1]
    if t > idx or t <= idx - n then return end
    local b = bi(t)
    if st[b] <= 0 then return end
    local give = imin(cost, st[b])
    st[b] = st[b] - give
    st[T] = st[T] - give
    if empty(st) then st[1] = 0 end
  end
  function A.idle(st) return newestEnd(st, st[1] - n + 1) end
  -- shift moves the periods back by d rounded down to whole periods (never
  -- further than the clock went back), the ring's counts with them.
  function A.moves(d) return fdiv(d, period) * period end
  function A.shift(st, d)
    local k, idx, c = fdiv(d, period), st[1], {}
    for q = idx - n + 1, idx do c[q] = st[bi(q)] end
    for q = idx - n + 1, idx do st[bi(q - k)] = c[q] end
    st[1] = idx - k
  end
  return A
end
