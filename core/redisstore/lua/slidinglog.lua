-- SlidingLog: st[1] ring index of the oldest entry, st[2] number of
-- entries, st[3..limit+2] the ring of entry instants, oldest first,
-- st[limit+3] the latest instant logged (a refund does not move it back).
function ALG.slidinglog(limit, window, countRejected)
  local A = {words = limit + 3, drift = true}
  function A.fresh() return zeros(limit + 3) end
  local function view(st)
    local head, n = st[1], imin(imax(st[2], 0), limit)
    if head < 0 or head >= limit then head = 0 end
    return {st = st, head = head, n = n, latest = st[limit + 3]}
  end
  local function pos(l, i)
    local p = l.head + i
    if p >= limit then p = p - limit end
    return p
  end
  local function at(l, i) return l.st[3 + pos(l, i)] end
  local function search(l, t)
    local lo, hi = 0, l.n
    while lo < hi do
      local m = floor((lo + hi) / 2)
      if at(l, m) <= t then lo = m + 1 else hi = m end
    end
    return lo
  end
  local function clock(l, now)
    local eff = imax(now, l.latest)
    if l.n > 0 then eff = imax(eff, at(l, l.n - 1)) end
    return eff, search(l, eff - window)
  end
  local function push(l, t, c)
    l.latest = t
    if c >= limit then
      for i = 3, limit + 2 do l.st[i] = t end
      l.head, l.n = 0, limit
      return
    end
    for _ = 1, c do
      if l.n == limit then
        l.st[3 + l.head] = t
        l.head = l.head + 1
        if l.head == limit then l.head = 0 end
      else
        l.st[3 + pos(l, l.n)] = t
        l.n = l.n + 1
      end
    end
  end
  local function drop(l, first)
    l.head, l.n = pos(l, first), l.n - first
    if l.n == 0 then l.head = 0 end
  end
  local function store(l) l.st[1], l.st[2], l.st[limit + 3] = l.head, l.n, l.latest end
  function A.take(st, now, cost, commit)
    local l = view(st)
    local eff, first = clock(l, now)
    local live = l.n - first
    if cost > limit - live then
      local reset, retry = 0, NEVER
      if live > 0 then reset = at(l, l.n - 1) + window - now end
      -- core's: the (live+cost-limit)-th oldest counted entry must expire
      -- (with countRejected, A.denied then reports the logged log).
      if cost <= limit then retry = at(l, first + live + cost - limit - 1) + window - now end
      return false, limit - live, reset, retry, 0
    end
    if cost == 0 then
      -- core's: the log as it stands, its newest counted entry's expiry.
      local reset = 0
      if live > 0 then reset = at(l, l.n - 1) + window - now end
      return true, limit - live, reset, 0, 0
    end
    if commit then
      drop(l, first)
      push(l, eff, cost)
      store(l)
    end
    return true, limit - live - cost, eff + window - now, 0, 0
  end
  -- A.denied is core's: with countRejected, an attempt the policy denied
  -- is logged (when commit) and the outcome of the same request on the
  -- logged log is returned.
  function A.denied(st, now, cost, commit)
    if not countRejected or cost < 1 or cost > limit then return nil end
    local l = view(st)
    local eff, first = clock(l, now)
    local live = l.n - first
    local m = imin(live + cost, limit)
    local k = m + cost - limit
    local o = {false, limit - m, eff + window - now, 0, 0}
    if k <= 0 then o[1] = true
    elseif 2 * cost <= limit then o[4] = at(l, first + live + 2 * cost - limit - 1) + window - now
    else o[4] = eff + window - now end
    if commit then
      drop(l, first)
      push(l, eff, cost)
      store(l)
    end
    return o
  end
  function A.refund(st, now, taken, cost)
    local l = view(st)
    local hi = search(l, taken)
    local lo = search(l, taken - 1)
    local k = imin(cost, hi - lo)
    if k <= 0 then return end
    for i = hi, l.n - 1 do l.st[3 + pos(l, i - k)] = at(l, i) end
    l.n = l.n - k
    if l.n == 0 then l.head = 0 end
    store(l)
  end
  -- A.idle is core's: a window after the latest instant logged.
  function A.idle(st)
    local l = view(st)
    if l.n == 0 and l.latest == 0 then return 0 end
    local latest = l.latest
    if l.n > 0 then latest = imax(latest, at(l, l.n - 1)) end
    return latest + window
  end
  function A.shift(st, d)
    local l = view(st)
    for i = 0, l.n - 1 do
      local j = 3 + pos(l, i)
      st[j] = st[j] - d
    end
    if st[limit + 3] ~= 0 then st[limit + 3] = st[limit + 3] - d end
  end
  return A
end
