-- floodgate redisstore spec: a policy's limits from the argument naming
-- them, the last of every call's (see compile): limits separated by ';',
-- each the name of its constructor in ALG and its parameters, separated
-- by ','; a parameter is a number, true, false or nil. The store checks
-- its policies before it names them; limitsOf checks them again against
-- KINDS, so that no caller of the library can name limits whose state
-- would be unbounded (a sliding log of millions of entries, say): the
-- number of parameters, and each one's kind: p an integer >= 1, i an
-- integer >= 0, o the same or nil, f a number > 0, r a number, b a
-- boolean; every number finite, every integer within 2^53; at most
-- MAXLIMITS limits, a SlidingLog's quota at most MAXLOG and a
-- RollingWindow's periods at most MAXPERIODS (the store's bounds, which
-- the library defines before this file), each checked as it is read, so
-- that an argument of any length costs at most that much.
local KINDS = {
  gcra = 'pipo', fixedwindow = 'ipb', slidingwindow = 'ip', tokenbucket = 'fp',
  hybrid = 'ippi', rollingwindow = 'iipp', slidinglog = 'ipb', warmup = 'irrrrr',
  backoff = 'iiiii',
}
local function bad(what) error('floodgate: policy argument: ' .. what) end
local function param(kind, v)
  if v == 'true' or v == 'false' then
    if kind ~= 'b' then bad('a boolean where a number belongs') end
    return v == 'true'
  end
  if v == 'nil' then
    if kind ~= 'o' then bad('nil where a value belongs') end
    return nil
  end
  local x = tonumber(v)
  if x == nil or kind == 'b' then bad('not a ' .. (kind == 'b' and 'boolean' or 'number')) end
  if x ~= x or x == math.huge or x == -math.huge then bad('a number not finite') end
  if kind ~= 'r' and kind ~= 'f' then
    if x ~= math.floor(x) or x < 0 or x > 9007199254740992 or (kind == 'p' and x < 1) then
      bad('not a whole number in range')
    end
  elseif kind == 'f' and x <= 0 then
    bad('not a number above 0')
  end
  return x
end
local function limitsOf(spec)
  if type(spec) ~= 'string' then bad('missing') end
  local LIMITS, n = {}, 0
  for limit in string.gmatch(spec, '[^;]+') do
    local name, kinds, p, k = nil, nil, {}, 0
    for v in string.gmatch(limit, '[^,]+') do
      if name == nil then
        name, kinds = v, KINDS[v]
        if kinds == nil then bad('an unknown algorithm') end
      else
        k = k + 1
        if k > #kinds then bad('too many parameters') end
        p[k] = param(string.sub(kinds, k, k), v)
      end
    end
    if k ~= #kinds then bad('too few parameters') end
    if (name == 'slidinglog' and p[1] > MAXLOG) or (name == 'rollingwindow' and p[4] > MAXPERIODS) then
      bad('a log or periods beyond the store\'s bounds')
    end
    n = n + 1
    if n > MAXLIMITS then bad('more limits than a policy has') end
    LIMITS[n] = ALG[name](unpack(p, 1, k))
  end
  if n == 0 then bad('no limits') end
  return LIMITS
end
