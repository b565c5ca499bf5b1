-- floodgate redisstore spec: a policy's limits from the argument naming
-- them, the last of every call's (see compile): limits separated by ';',
-- each the name of its constructor in ALG and its parameters, separated
-- by ','; a parameter is a number, true, false or nil.
local function limitsOf(spec)
  local LIMITS, n = {}, 0
  for limit in string.gmatch(spec, '[^;]+') do
    local name, p, k = nil, {}, 0
    for v in string.gmatch(limit, '[^,]+') do
      if name == nil then
        name = v
      else
        k = k + 1
        if v == 'true' then p[k] = true
        elseif v == 'false' then p[k] = false
        elseif v ~= 'nil' then
          p[k] = tonumber(v)
          if p[k] == nil then error('floodgate: malformed policy argument') end
        end
      end
    end
    local ctor = ALG[name]
    if ctor == nil then error('floodgate: unknown algorithm in the policy argument') end
    n = n + 1
    LIMITS[n] = ctor(unpack(p, 1, k))
  end
  if n == 0 then error('floodgate: empty policy argument') end
  return LIMITS
end
-- policyArg removes the policy argument from the end of ARGV and returns
-- it, leaving the arguments of the call proper.
local function policyArg(ARGV)
  local n = #ARGV
  local spec = ARGV[n]
  ARGV[n] = nil
  return spec
end
