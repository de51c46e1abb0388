# Issue 38, round 4, class 1: the scenario's own job and system are checked against what makes
# physical sense before anything is measured, and refused naming the field and the value (exit
# 3, nothing written): a LoRA rank that is not low (above the smallest side of an adapted matrix,
# or adapters as large as the weights they adapt); fields that its other fields make meaningless
# (workload_base without LoRA, workload_fill with packing); fewer tokens than one optimizer step;
# workload_* or system_* fields given without a name (a field given at its default value cannot be
# told from one left out); an empty or blank name; system figures below any machine one trains on,
# and subnormal numbers in any field. From the scenario and from --set alike.

$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workload_name=big --set model.workload_lora_rank=65536
--set model.workload_name=big model.workload_lora_rank=65536: model: workload 'big': workload_lora_rank = 65536 is not a low rank: an adapter's rank is at most the smaller side of the matrix it adapts, here 1024 (the smallest of workload_hidden, the key/value width and workload_ffn), and a LoRA's is far below it
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workload_name=wide --set model.workload_kv_heads=32 --set model.workload_lora_rank=3000
--set model.workload_name=wide model.workload_kv_heads=32 model.workload_lora_rank=3000: model: workload 'wide': workload_lora_rank = 3000 is not a low rank: its adapters would hold 8.45 B values, as many as the 7.78 B weights they adapt or more (a LoRA's rank is far below workload_hidden = 4096)
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5,\n  sr.model { workload_name = "q", workload_base = "nf4" } }\n' > $OUT/base.lua && sparkreport run $OUT/base.lua -o $OUT/r
{*}/base.lua:3: model: workload 'q': workload_base 'nf4' is the frozen base of a LoRA job, and workload_lora_rank is 0 (full training): give workload_lora_rank, or leave workload_base out
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workload_name=f --set model.workload_fill=0.5
--set model.workload_name=f model.workload_fill=0.5: model: workload 'f': workload_fill = 0.5 applies to sequences that are not packed, and workload_packing is true: set workload_packing = false, or leave workload_fill out
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workload_name=t --set model.workload_tokens=1000
--set model.workload_name=t model.workload_tokens=1000: model: workload 't': workload_tokens = 1000 is less than one optimizer step (workload_batch x workload_seq = 131072 tokens)
[3]
# fields without the name that turns them on
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5,\n  sr.model { workload_layers = 2, workload_hidden = 512 } }\n' > $OUT/noname.lua && sparkreport run $OUT/noname.lua -o $OUT/r
{*}/noname.lua:3: model: parameter 'workload_layers' = 2 is given, but workload_name is none: the workload_* fields describe the scenario's own workload, which only a name makes (workload_name = "..."); name it, or leave workload_layers out
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.system_bw_gbs=500
--set model.system_bw_gbs=500: model: parameter 'system_bw_gbs' = 500 is given, but system_name is none: the system_* fields describe the scenario's own system, which only a name makes (system_name = "..."); name it, or leave system_bw_gbs out
[3]
# names without a subject
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workload_name=
tests/scenarios/own-model.lua: model: workload_name is empty: the report's sentences name it (give it a name, or none)
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set 'model.system_name=   ' --set model.system_bw_gbs=100 --set model.system_memory_gb=8 --set model.system_bf16_tflops=1
tests/scenarios/own-model.lua: model: system_name is empty: the report's sentences name it (give it a name, or none)
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set title=
tests/scenarios/own-model.lua: scenario: title is empty: the report's first page shows it (give a title)
[3]
# figures no machine one trains on has, and numbers too small to compute with
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5,\n  sr.model { system_name = "mine", system_bw_gbs = 1e-310, system_memory_gb = 8, system_bf16_tflops = 1 } }\n' > $OUT/sub.lua && sparkreport run $OUT/sub.lua -o $OUT/r
{*}/sub.lua:3: model: parameter 'system_bw_gbs' = 1e-310 is too small to compute with (a subnormal number, below 2.23e-308); give 0 or a figure in the parameter's unit
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.system_name=mine --set model.system_bw_gbs=1e-300 --set model.system_memory_gb=8 --set model.system_bf16_tflops=1
--set model.system_name=mine model.system_bw_gbs=1e-300 model.system_memory_gb=8 model.system_bf16_tflops=1: model: system 'mine': system_bw_gbs = 1e-300 is below 1 GB/s, less than any machine one trains on
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.system_name=mine --set model.system_bw_gbs=100 --set model.system_memory_gb=8 --set model.system_bf16_tflops=1e-5
--set model.system_name=mine model.system_bw_gbs=100 model.system_memory_gb=8 model.system_bf16_tflops=1e-5: model: system 'mine': system_bf16_tflops = 1e-05 is below 0.01 TFLOPS, less than any machine one trains on (0: none or unknown)
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.system_name=mine --set model.system_bw_gbs=100 --set model.system_memory_gb=8 --set model.system_bf16_tflops=1 --set model.system_price_usd=0.5
--set model.system_name=mine model.system_bw_gbs=100 model.system_memory_gb=8 model.system_bf16_tflops=1 model.system_price_usd=0.5: model: system 'mine': system_price_usd = 0.5 is below 1 USD, less than any machine one trains on (0: none or unknown)
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set kwh_usd=1e-320
--set kwh_usd=1e-320: scenario: parameter 'kwh_usd' = 9.99989e-321 is too small to compute with (a subnormal number, below 2.23e-308); give 0 or a figure in the parameter's unit
[3]
$ ls -A $OUT | grep -c r$
0
[1]
# a system of the team's own (sr.system): refused naming the field, needs the model, and sr.measured may name it
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.model { },\n  sr.system { id = "our-box", name = "Our box", memory_gb = 96, mem_bw_gbs = 1792, bf16_tflops = 504 } }\n' > $OUT/nosms.lua && sparkreport run $OUT/nosms.lua -o $OUT/r
{*}/nosms.lua:3: sr.system 'our-box': sms is missing; a system of your own needs id, name, memory_gb, mem_bw_gbs, bf16_tflops, sms
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.bandwidth { },\n  sr.system { id = "our-box", name = "Our box", memory_gb = 96, mem_bw_gbs = 1792, bf16_tflops = 504, sms = 188 } }\n' > $OUT/nomodel.lua && sparkreport run $OUT/nomodel.lua -o $OUT/r
{*}/nomodel.lua:2: scenario: sr.system 'our-box' is projected by the model: add sr.model { } to the scenario
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.model { },\n  sr.job { name = "j", config = "data/models/gpt2.json" },\n  sr.measured { job = "j", system = "our-bx", tokens_per_s = 10, source = "x" },\n  sr.system { id = "our-box", name = "Our box", memory_gb = 96, mem_bw_gbs = 1792, bf16_tflops = 504, sms = 188 } }\n' > $OUT/badm.lua && sparkreport run $OUT/badm.lua -o $OUT/r 2>&1 | sed 's/(valid: .*, our-box)/(valid: ..., our-box)/'
{*}/badm.lua:2: scenario: sr.measured 1: system 'our-bx' is neither a catalog system nor an sr.system of the scenario (valid: ..., our-box)
$ test -e $OUT/r || echo nothing written
nothing written
