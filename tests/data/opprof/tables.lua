-- Table-heavy script: fill an array part, then read it back many times. The inner
-- loops are SETTABLE t[i] = v and GETTABLE t[j] with integer keys in registers, plus
-- FORLOOP and ADD.
local n = math.tointeger(tonumber(arg[1]) or 1e6)
local size = 1000
local t = {}
for i = 1, size do
  t[i] = i
end
local s = 0
for _ = 1, n // size do
  for j = 1, size do
    t[j] = s
    s = t[j] + j
  end
end
print(s)
