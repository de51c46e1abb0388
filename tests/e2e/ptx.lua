-- tests/e2e/ptx.lua: the built program carries PTX a newer GPU can compile (issue 17, item 11):
-- SASS alone runs only on its own architecture family, so without PTX every custom kernel fails
-- on a B200 (sm_100) or an RTX 50 (sm_120). Lists the fatbin entries with cuobjdump when it is
-- installed, else reads the fatbin headers itself, and checks that each group of kernels has
-- PTX no newer than its oldest SASS (PTX runs only on GPUs at least as new as its own target).
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local config = read(env.builddir .. "/config.h")
if not config:find("#define HAVE_CUDA 1", 1, true) then return "skip", "this build has no CUDA" end

-- Fatbin headers (fatbinary_section.h's layout, stable since CUDA 4): 0xBA55ED50, version 1,
-- header size 16, payload size; then entries {kind 1 PTX / 2 ELF, version, header size,
-- payload size, ..., architecture at byte 28}. One fatbin per compiled .cu.
local function fatbins(data)
  local groups, at = {}, 1
  while true do
    local i = data:find("\x50\xed\x55\xba", at, true)
    if not i then return groups end
    local _, ver, hs, size = string.unpack("<I4I2I2I8", data, i)
    local g, off, stop = { ptx = {}, elf = {} }, i + hs, i + hs + size
    local ok = ver == 1 and hs == 16 and size > 0 and stop - 1 <= #data
    while ok and off < stop do
      local kind, _, ehs, psize = string.unpack("<I2I2I4I4", data, off)
      local arch = string.unpack("<I4", data, off + 28)
      ok = (kind == 1 or kind == 2) and ehs >= 32 and off + ehs + psize <= stop
      if ok then table.insert(kind == 1 and g.ptx or g.elf, arch) end
      off = off + ehs + psize
    end
    if ok then groups[#groups + 1] = g; at = stop else at = i + 4 end
  end
end

-- cuobjdump's view: every entry of the program as one group ("PTX file 1: x.sm_90.ptx").
local function cuobjdump(tool)
  local g = { ptx = {}, elf = {} }
  for _, kind in ipairs { "ptx", "elf" } do
    local out, code = sh(("%s --list-%s %s"):format(q(tool), kind, q(env.bin)))
    if code ~= 0 and kind == "ptx" and out:find("does not contain") then out = "" elseif code ~= 0 then fail("cuobjdump: %s", out) end
    for arch in out:gmatch("sm_(%d+)") do table.insert(g[kind], tonumber(arch)) end
  end
  return { g }
end

local tool = sh("command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump"):match("^(/[^\n]*cuobjdump)\n")
local groups = tool and cuobjdump(tool) or fatbins(read(env.bin))
local with_sass = 0
for n, g in ipairs(groups) do
  if #g.elf > 0 then
    with_sass = with_sass + 1
    local oldest = math.min(table.unpack(g.elf))
    if #g.ptx == 0 then fail("fatbin %d: SASS for sm_%s but no PTX: a newer GPU cannot run these kernels", n, table.concat(g.elf, ", sm_")) end
    if math.min(table.unpack(g.ptx)) > oldest then
      fail("fatbin %d: PTX only for compute_%s, newer than its oldest SASS sm_%d", n, table.concat(g.ptx, ", compute_"), oldest)
    end
  end
end
if with_sass == 0 then fail("%s has no CUDA kernels (%s)", env.bin, tool or "fatbin headers") end
return "pass"
