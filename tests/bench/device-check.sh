#!/bin/sh
# device-check.sh: every GPU check, in one go, for a session lent a CUDA machine (which has a
# driver but none of our libraries). Prepare here, run there:
#   ../shared/tools/bundle.sh src/sparkreport .devpack/sr scenarios/gpu-check.lua \
#       /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf \
#       /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
#       /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
#   ../shared/tools/bundle.sh tests/unit/test_bandwidth_gpu .devpack/t
#   (on the device, with .devpack carried) sh tests/bench/device-check.sh
# Writes under $OUT: what the driver says, the GPU unit test, a full GPU bandwidth run
# (results.json, report.pdf), and a PyTorch device-to-device copy when torch is there.
set -u
: "${OUT:=/tmp/device-check}"
pack=${DEVPACK:-.devpack}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
"$pack/sr/run" info > "$OUT/info.txt" 2>&1
"$pack/t/run" > "$OUT/test_bandwidth_gpu.txt" 2>&1
echo "test_bandwidth_gpu exit $?" >> "$OUT/test_bandwidth_gpu.txt"
fonts=$(dirname "$(find "$pack/sr" -name DejaVuSans.ttf | head -n 1)")
SPARKREPORT_FONT_DIR="$fonts" "$pack/sr/run" run "$pack/sr/scenarios/gpu-check.lua" -o "$OUT/reports" \
    > "$OUT/run.txt" 2>&1
echo "run exit $?" >> "$OUT/run.txt"
python3 - > "$OUT/torch-copy.txt" 2>&1 <<'PY'
# A device-to-device copy in PyTorch, for the issue's comparison: bytes read + written.
import time
try:
    import torch
except ImportError as e:
    print("not measured: no torch on this machine:", e)
    raise SystemExit(0)
n = 3 * 2**30 // 8 // 3
a = torch.ones(n, dtype=torch.float64, device="cuda")
b = torch.empty_like(a)
best = float("inf")
for _ in range(20):
    torch.cuda.synchronize(); t = time.perf_counter(); b.copy_(a); torch.cuda.synchronize()
    best = min(best, time.perf_counter() - t)
print("torch copy: %.1f GB/s (2 x %d bytes / best of 20)" % (2 * 8 * n / best / 1e9, 8 * n))
PY
ls -la "$OUT"
