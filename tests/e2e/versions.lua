-- tests/e2e/versions.lua: one version, configure.ac's (AC_INIT), said everywhere a user reads it:
-- `sparkreport --version`, the man page's header (man/sparkreport.1) and the Debian package's top
-- changelog entry (debian/changelog; debian/rules refuses to build the package when they differ,
-- this says so before anyone builds one). A version bumped in one place only fails here.
local env = ...
local fail, read, sh, q = env.fail, env.read, env.sh, env.q
local version = read(env.srcdir .. "/configure.ac"):match("AC_INIT%(%[sparkreport%], %[([^%]]+)%]")
if not version then fail("configure.ac: no AC_INIT([sparkreport], [VERSION])") end
local said = sh(q(env.bin) .. " --version")
if not said:find("^sparkreport " .. version:gsub("%p", "%%%0") .. " %(git ") then
  fail("sparkreport --version says %q; configure.ac %s", said, version)
end
local man = read(env.srcdir .. "/man/sparkreport.1"):match('^%.TH SPARKREPORT 1 "[^"]*" "sparkreport ([^"]+)"')
if man ~= version then fail("man/sparkreport.1's header says %s; configure.ac %s", tostring(man), version) end
local deb = read(env.srcdir .. "/debian/changelog"):match("^sparkreport %(([^)]+)%)")
if deb ~= version then
  fail("debian/changelog's top entry is %s; configure.ac %s (add an entry: dch -v %s)", tostring(deb), version, version)
end
return "pass"
