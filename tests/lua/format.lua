-- tests/lua/format.lua: the number formats every section uses.
local fmt = require "sparkreport.format"

assert(fmt.rate(231.46) == "231")
assert(fmt.rate(43.25) == "43.2" or fmt.rate(43.25) == "43.3")
assert(fmt.rate(12.345) == "12.3")
assert(fmt.rate(9.876) == "9.88")
assert(fmt.rate(0 / 0) == "n/a")
assert(fmt.pct(0.8512) == "85.1 %")
assert(fmt.cv(0.025) == "2.5 %")
assert(fmt.seconds(2.5e-6) == "2.5 µs")
assert(fmt.seconds(0.0123) == "12.30 ms")
assert(fmt.bytes(65536) == "64 KiB")
assert(fmt.duration(245) == "4m05s")

-- issue 38, class 4: every entry point, given what is not a figure, prints "n/a", never inf, nan
-- or a minus sign on a cost, time or count; a figure of 1e15 or more prints in exponent form: no
-- output has more than 15 digits
local function digits(s) local n = 0; for _ in s:gmatch("%d") do n = n + 1 end; return n end
local entries = { "rate", "pct", "cv", "seconds", "bytes", "duration", "int", "thousands", "big", "hours", "count" }
local unsigned = { cv = true, bytes = true, duration = true, hours = true, count = true }
for _, name in ipairs(entries) do
  for _, x in ipairs { 1 / 0, -1 / 0, 0 / 0, 1e300, -1e300, 1e15, 123456789012345678, -3999, 2.5 } do
    local ok, s = pcall(fmt[name], x)
    assert(ok, ("fmt.%s(%s) raised %s"):format(name, tostring(x), tostring(s)))
    assert(type(s) == "string", ("fmt.%s(%s) gave %s"):format(name, tostring(x), type(s)))
    local low = s:lower()
    assert(not low:find("inf") and not low:find("nan"), ("fmt.%s(%s) = %q"):format(name, tostring(x), s))
    assert(digits(s:gsub("e[%+%-]%d+", "")) <= 15, ("fmt.%s(%s) = %q: more than 15 digits"):format(name, tostring(x), s))
    if unsigned[name] and x < 0 then assert(s == "n/a", ("fmt.%s(%s) = %q"):format(name, tostring(x), s)) end
  end
  assert(fmt[name](nil) == "n/a", "fmt." .. name .. "(nil)")
end
for _, x in ipairs { 1 / 0, -1 / 0, 0 / 0, -3999, -0.5 } do
  assert(fmt.usd(x) == "n/a", ("fmt.usd(%s) = %q"):format(tostring(x), fmt.usd(x)))
end
assert(fmt.usd(1e300) == "$1e+300" and fmt.usd(2.5e15) == "$2.5e+15", fmt.usd(1e300))
assert(fmt.usd(999999999999999) == "$999,999,999,999,999", fmt.usd(999999999999999))
assert(fmt.hours(1e300) == "> 100 years" and fmt.hours(1e300, "") == "1e+300" and fmt.hours(-5) == "n/a")
assert(fmt.thousands(1234567) == "1,234,567" and fmt.thousands(-1234) == "-1,234" and fmt.int(2.5e15) == "2.5e+15")
assert(fmt.pct(1e300) == "1e+302 %" and fmt.count(1e300) == "1e+288 T")
