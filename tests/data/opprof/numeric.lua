-- Loop-heavy numeric script: one loop whose body is a multiply by a constant and an add.
-- Lua 5.4 compiles the body to MULK (i * 3), ADD (s + ...) and FORLOOP; the MMBIN
-- instructions after MULK and ADD run only when the fast path fails (never here).
local n = math.tointeger(tonumber(arg[1]) or 1e7)
local s = 0
for i = 1, n do
  s = s + i * 3
end
print(s)
