# The training experiment's parameters are checked when the scenario runs: shapes that cannot
# be built, precisions the device lacks and shapes that do not fit are refused with the reason
# (and the bytes needed) before anything is measured or written.

$ sparkreport run tests/scenarios/train-heads.lua -o $OUT/reports
tests/scenarios/train-heads.lua:4: train: custom fp32 cpu (2 layers, hidden 64, 5 heads, seq 64, vocab 256, batch 8): heads must divide hidden (the head size is hidden / heads)
[3]
$ sparkreport run tests/scenarios/train-fp8-cpu.lua -o $OUT/reports
tests/scenarios/train-fp8-cpu.lua:4: train: precision fp8 needs device = "gpu" (FP8 matmuls are cuBLASLt's; the CPU has none)
[3]
$ sparkreport run tests/scenarios/train-too-big.lua -o $OUT/reports
tests/scenarios/train-too-big.lua:5: train: custom fp32 cpu (12 layers, hidden 768, 12 heads, seq 8192, vocab 50257, batch 4096) needs {*} TiB (weights {*}, low-precision copies 0 B, gradients {*}, optimizer {*}, activations {*} TiB, scratch {*}); {*} may be used (80 % of what is available)
[3]
$ sparkreport run tests/scenarios/train-tiny.lua -o $OUT/reports --set train.shapes=huge
--set train.shapes=huge: train: parameter 'shapes' has unknown value 'huge' (valid: tiny, small, medium, gpt2-small)
[3]
$ sparkreport list
...
  train: a GPT-style decoder trained on a generated n-gram corpus: loss against the entropy bound, step time, tokens/s, FLOP/s and every op timed
    device             where the model trains: CPU (OpenMP, CBLAS) or the first CUDA device (cuBLASLt)
                       one of cpu, gpu; default cpu
    shapes             model shape presets to train; layers, hidden, ... override their fields
                       list of one of tiny, small, medium, gpt2-small; default tiny
...
