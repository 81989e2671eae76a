-- accbench.lua - a CPU-bound Lua workload for the accuracy bench (accuracy.py): a mix that
-- exercises the interpreter loop, the table code, the garbage collector, strings and calls from
-- C back into Lua (table.sort with a Lua comparison). The argument scales the work.
local scale = tonumber(arg and arg[1]) or 1

-- Binary trees: allocation and the collector.
local function tree(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { tree(depth), tree(depth) }
end

local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end

local nodes = 0
for _ = 1, 4 * scale do
  nodes = nodes + check(tree(14))
end

-- Strings: formatting, concatenation, pattern matching, hashing into a table.
local words = {}
for i = 1, 20000 * scale do
  local s = string.format("key%05d:%x", i % 5000, i * 7919)
  local k = s:match("^key(%d+)")
  words[k] = (words[k] or 0) + #s
end
local distinct = 0
for _ in pairs(words) do distinct = distinct + 1 end

-- Sorting records with a Lua comparison called from C.
local recs = {}
local x = 42
for i = 1, 30000 * scale do
  x = (x * 1103515245 + 12345) % 2147483648
  recs[i] = { id = i, v = x % 1000 }
end
table.sort(recs, function(a, b)
  if a.v ~= b.v then return a.v < b.v end
  return a.id < b.id
end)

-- Numbers and closures: a small n-body style loop over tables of fields.
local bodies = {}
for i = 1, 5 do
  bodies[i] = { x = i, y = 2 * i, z = 3 * i, vx = 0, vy = 0, vz = 0, m = 1 + i / 10 }
end
local function advance(dt)
  local n = #bodies
  for i = 1, n do
    local bi = bodies[i]
    for j = i + 1, n do
      local bj = bodies[j]
      local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
      local d2 = dx * dx + dy * dy + dz * dz + 0.01
      local mag = dt / (d2 * math.sqrt(d2))
      bi.vx = bi.vx - dx * bj.m * mag
      bi.vy = bi.vy - dy * bj.m * mag
      bi.vz = bi.vz - dz * bj.m * mag
      bj.vx = bj.vx + dx * bi.m * mag
      bj.vy = bj.vy + dy * bi.m * mag
      bj.vz = bj.vz + dz * bi.m * mag
    end
  end
  for i = 1, n do
    local b = bodies[i]
    b.x, b.y, b.z = b.x + dt * b.vx, b.y + dt * b.vy, b.z + dt * b.vz
  end
end
for _ = 1, 20000 * scale do advance(0.01) end

io.write(string.format("nodes=%d distinct=%d first=%d x=%.3f\n", nodes, distinct, recs[1].id,
  bodies[1].x))
