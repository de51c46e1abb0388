-- tests/e2e/nccl_order.lua: the collective's device part keeps every copy, clear and wait on the
-- NCCL stream and every wait bounded (issue 26, items 1 and 3), read from its source, which the
-- CPU can check where no GPU runs it: the NCCL stream is non-blocking, so a cudaMemcpy or
-- cudaMemset (the legacy stream) races the collective (a stale send buffer, a clear landing on
-- NCCL's result), and a cudaStreamSynchronize or cudaDeviceSynchronize waits for ever on a peer
-- that died (only the polling wait asks ncclCommGetAsyncError). test_collective_nccl shows the
-- same on a GPU.
local env = ...
local fail, read = env.fail, env.read
local src = read(env.srcdir .. "/src/exp/collective/collective_nccl.cu")
local code = src:gsub("/%*.-%*/", ""):gsub("//[^\n]*", "")      -- comments name what is not called
for _, bad in ipairs { "cudaMemcpy%s*%(", "cudaMemset%s*%(", "cudaStreamSynchronize%s*%(", "cudaDeviceSynchronize%s*%(",
                       "ncclCommInitRank%s*%(" } do
  local at = code:find(bad)
  if at then
    local line = select(2, code:sub(1, at):gsub("\n", "")) + 1
    fail("collective_nccl.cu calls %s (line %d of the code without comments)", bad:gsub("%%s%*%%%(", ""), line)
  end
end
for _, want in ipairs { "cudaMemcpyAsync", "cudaMemsetAsync", "ncclCommGetAsyncError", "ncclCommAbort", "coll_wait",
                        "blocking = 0" } do
  if not code:find(want, 1, true) then fail("collective_nccl.cu has no %s", want) end
end
return "pass"
