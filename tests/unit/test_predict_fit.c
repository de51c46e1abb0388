/* test_predict_fit.c: what it takes to fit, on constructed cases (fits as is, needs checkpointing,
 * needs accumulation, offload refused on a shared pool or by the host's size, does not fit),
 * and the reference workloads: published parameter counts, LoRA's trainable parameters, the
 * QLoRA 70B base at 4.127 bits per weight. */
#include <string.h>

#include "check.h"
#include "predict/fit.h"
#include "predict/workloads.h"

static double device_bytes(struct net_shape s, int checkpoint, int batch)
{
    struct net_memory m;
    s.accum = s.batch * s.accum / batch;
    s.batch = batch;
    s.checkpoint = checkpoint;
    net_memory(&s, NET_BF16, NET_IMPL_GPU, &m);
    return m.total;
}

/* A target without a reserve, one GPU: the decisions alone. */
static struct predict_fit_target target(double capacity, double host, int shared)
{
    struct predict_fit_target t = { capacity, host, 0, shared, 1, PREDICT_ZERO_AUTO, 0, 1, 0, 0 };
    return t;
}

static int fit_at(const struct net_shape *s, double capacity, double host, int shared, struct predict_fit *f)
{
    struct predict_fit_target t = target(capacity, host, shared);
    return predict_fit(s, NET_BF16, &t, f);
}

/* The order: as given; smaller micro-batches with accumulation; checkpointing (largest micro-batch
 * that fits); offload last, never on a shared pool. */
static void test_decisions(void)
{
    struct net_shape s = { .layers = 6, .hidden = 512, .heads = 8, .seq = 64, .vocab = 8000, .batch = 8, .accum = 1 };
    struct predict_fit f;
    double full = device_bytes(s, 0, 8), full4 = device_bytes(s, 0, 4), full1 = device_bytes(s, 0, 1),
           ck = device_bytes(s, 1, 8), ck4 = device_bytes(s, 1, 4), ck2 = device_bytes(s, 1, 2), ck1 = device_bytes(s, 1, 1);
    EXPECT(full > ck && ck > ck4 && ck4 > ck2 && ck2 > ck1 && full > full4 && full4 > full1);

    EXPECT(fit_at(&s, full, 0, 0, &f) == 1);                        /* as is, to the byte */
    EXPECT(f.fits && !f.checkpoint && f.micro_batch == 8 && f.accum == 1 && !f.offload && f.gpus == 1 && f.zero == 0);
    EXPECT(f.device_bytes == full && strncmp(f.reason, "fits: ", 6) == 0);

    /* checkpointing at micro-batch 8 would fit too: accumulation comes first */
    double cap = (full + full4) / 2;
    EXPECT(ck < cap);
    fit_at(&s, cap, 0, 1, &f);
    EXPECT(f.fits && !f.checkpoint && f.micro_batch == 4 && f.accum == 2 && f.device_bytes == full4);
    EXPECT(strncmp(f.reason, "fits with gradient accumulation 2 (micro-batch 4): ", 51) == 0);

    /* below micro-batch 1 without it: checkpointing, with the largest micro-batch that fits */
    EXPECT(ck2 < full1 && ck4 > full1);
    fit_at(&s, (full1 + ck2) / 2, 0, 1, &f);
    EXPECT(f.fits && f.checkpoint && f.micro_batch == 2 && f.accum == 4 && f.device_bytes == ck2);
    EXPECT(strstr(f.reason, "activation checkpointing and gradient accumulation 4 (micro-batch 2): ") != NULL);
    /* deep, narrow and long: checkpointing at the full micro-batch beats micro-batch 1 without it */
    struct net_shape v = { .layers = 24, .hidden = 64, .heads = 4, .seq = 512, .vocab = 256, .batch = 8, .accum = 1 };
    EXPECT(device_bytes(v, 1, 8) < device_bytes(v, 0, 1));
    fit_at(&v, (device_bytes(v, 1, 8) + device_bytes(v, 0, 1)) / 2, 0, 0, &f);
    EXPECT(f.fits && f.checkpoint && f.micro_batch == 8 && f.accum == 1);
    EXPECT(strncmp(f.reason, "fits with activation checkpointing: ", 36) == 0);

    /* nothing fits without offload: offload, with the same order after it; never on a shared pool */
    struct net_memory m;
    net_memory(&s, NET_BF16, NET_IMPL_GPU, &m);
    double N = m.trainable, opt = 8 * N + 4 * (double)net_low_count(&s);   /* moments and the matmul weights' master */
    cap = (full - opt + full4 - opt) / 2;
    EXPECT(cap < ck1);
    EXPECT(fit_at(&s, cap, 0, 1, &f) == 0);
    EXPECT(!f.fits && !f.offload && f.micro_batch == 1 && f.checkpoint && f.device_bytes == ck1);
    EXPECT(strncmp(f.reason, "does not fit: needs ", 20) == 0 && strstr(f.reason, "share one memory pool") != NULL);
    EXPECT(fit_at(&s, cap, 0, 0, &f) == 1);
    EXPECT(f.offload == PREDICT_OFFLOAD_OPTIMIZER && !f.checkpoint && f.micro_batch == 4);
    EXPECT_NEAR(f.host_bytes, 12 * N, 1e-15);
    EXPECT_NEAR(f.device_bytes, full4 - opt, 1e-12);
    EXPECT(f.mem.bytes[NET_MEM_OPTIMIZER] == 0 && f.mem.bytes[NET_MEM_GRADS] == 4 * N);
    /* gradients down (FP32), the weights the device reads up: BF16 matmul copies, FP32 others */
    double low = (double)net_low_count(&s);
    EXPECT_NEAR(f.offload_traffic_bytes, 4 * N + 2 * low + 4 * (N - low), 1e-12);
    EXPECT_NEAR(f.host_optimizer_bytes, 28 * N, 1e-15);
    EXPECT(strstr(f.reason, "fits with offload of the master weights and optimizer state to host memory") == f.reason);
    /* the host too small for it */
    EXPECT(fit_at(&s, cap, 11 * N, 0, &f) == 0 && strstr(f.reason, "host memory") != NULL);
    /* offloading the gradients too: each micro-batch's go down */
    s.accum = 2;
    cap = device_bytes(s, 1, 1) - opt - 2 * N;
    EXPECT(fit_at(&s, cap, 0, 0, &f) == 1 && f.offload == PREDICT_OFFLOAD_GRADIENTS);
    EXPECT(f.mem.bytes[NET_MEM_GRADS] == 0 && f.host_bytes == 16 * N);
    EXPECT_NEAR(f.offload_traffic_bytes, 4 * N * f.accum + 2 * low + 4 * (N - low), 1e-12);
    /* nothing helps */
    EXPECT(fit_at(&s, 1e6, 0, 0, &f) == 0 && strstr(f.reason, "does not fit: needs") == f.reason);
    EXPECT(strstr(f.reason, "offloading the optimizer and gradients would need") != NULL);
}

/* GiB where the vendor means GiB; the reserve: runtime (or the OS's share of a shared pool) and
 * 5 % for the allocator; nothing fits with less than it free. */
static void test_capacity_reserve(void)
{
    EXPECT(predict_capacity_bytes(80, "GiB") == 85899345920.0);         /* 85.9e9 */
    EXPECT(predict_capacity_bytes(141, "GiB") == 141 * 1073741824.0);
    EXPECT(predict_capacity_bytes(128, "GB") == 128e9 && predict_capacity_bytes(128, "") == 128e9);
    EXPECT(predict_capacity_bytes(128, NULL) == 128e9);
    EXPECT_NEAR(predict_fit_reserve(85899345920.0, 0), 2e9 + 0.05 * 85899345920.0, 1e-15);
    EXPECT_NEAR(predict_fit_reserve(128e9, 1), 0.16 * 128e9 + 0.05 * 128e9, 1e-15);     /* 26.9 GB */
    struct predict_fit_target t;
    predict_fit_target_for(85899345920.0, 0, 0, 0, &t);
    EXPECT(t.gpus == 1 && t.zero == PREDICT_ZERO_AUTO && t.reserve == predict_fit_reserve(t.capacity, 0));

    struct net_shape s = { .layers = 6, .hidden = 512, .heads = 8, .seq = 64, .vocab = 8000, .batch = 8, .accum = 1 };
    struct predict_fit f;
    double need = device_bytes(s, 1, 1), cap = need + 1e6;          /* the smallest, 1 MB to spare */
    EXPECT(fit_at(&s, cap, 0, 1, &f) == 1 && f.reserve_bytes == 0);
    t = target(cap, 0, 1);
    t.reserve = predict_fit_reserve(cap, 1);
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 0 && f.reserve_bytes == t.reserve);
    EXPECT(strstr(f.reason, "usable here (") != NULL && strstr(f.reason, " reserve)") != NULL);
    t.reserve = 1e6;                                                 /* exactly the reserve free */
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 1);
    t.reserve = 1e6 + 1;
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 0);
}

/* ZeRO over n GPUs, bytes per device against the closed forms (research note section 3: stage 1
 * shards master and moments, 2 also the gradients, 3 also the weights): AdamW, BF16, N
 * parameters of which `low` have a BF16 copy (the master of the others is what the device reads). */
static void test_zero(void)
{
    struct net_shape s = { .layers = 4, .hidden = 256, .heads = 4, .seq = 128, .vocab = 1000, .batch = 2, .accum = 1,
                           .tied = 1, .attention = NET_ATT_FLASH, .amp = 1 };
    double n = 8;
    struct net_memory m[4];
    for (int z = 0; z < 4; z++)
        predict_fit_memory(&s, NET_BF16, 8, z, &m[z]);
    double N = m[0].params, low = (double)net_low_count(&s);
    double act = m[0].bytes[NET_MEM_ACTIVATIONS] + m[0].bytes[NET_MEM_SCRATCH];
    EXPECT_NEAR(m[0].total, 16 * N + 2 * low + act, 1e-15);
    EXPECT_NEAR(m[1].total, 4 * (N - low) + 2 * low + 4 * N + (4 * low + 8 * N) / n + act, 1e-15);
    EXPECT_NEAR(m[2].total, 4 * (N - low) + 2 * low + (4 * low + 8 * N + 4 * N) / n + act, 1e-15);
    double block = (double)(net_param_offset(&s, NET_P_LNFW, 0) - net_param_offset(&s, NET_P_LN1W, 0)) / s.layers;
    EXPECT_NEAR(m[3].total, (16 * N + 2 * low) / n + act + 2 * 2 * block, 1e-15);    /* + two blocks gathered */
    /* one GPU: no sharding whatever the stage */
    struct net_memory one;
    predict_fit_memory(&s, NET_BF16, 1, 3, &one);
    EXPECT(one.total == m[0].total);

    /* "auto": the lowest stage that fits; the global batch split over the GPUs */
    struct predict_fit f;
    struct predict_fit_target t = { (m[1].total + m[0].total) / 2, 0, 0, 0, 8, PREDICT_ZERO_AUTO, 0, 1, 0, 0 };
    s.batch = 4; s.accum = 4;                   /* 16 sequences: 2 per GPU, micro-batch 2 */
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 1 && f.zero == 1 && f.gpus == 8);
    EXPECT(f.micro_batch == 2 && f.accum == 1 && !f.checkpoint && f.device_bytes == m[1].total);
    EXPECT(strncmp(f.reason, "fits with ZeRO-1 over 8 GPUs: ", 30) == 0);
    struct net_shape one1 = s;                  /* plain data parallelism asked: a smaller micro-batch */
    one1.batch = 1; one1.accum = 2;
    predict_fit_memory(&one1, NET_BF16, 8, 0, &one);
    t.zero = 0;
    t.capacity = (one.total + m[0].total) / 2;
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 1 && f.zero == 0 && f.micro_batch == 1 && f.accum == 2);
    EXPECT(strstr(f.reason, "fits with data parallelism over 8 GPUs and gradient accumulation 2 (micro-batch 1): ") == f.reason);
    t.capacity = m[0].total;
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 1 && f.zero == 0 && f.micro_batch == 2);
    /* on several GPUs offload comes with ZeRO-3 (FSDP's CPU offload, DeepSpeed's offload_optimizer), last;
       where nothing fits the reason says what ZeRO-3 with offload would need per GPU */
    t.zero = PREDICT_ZERO_AUTO;
    t.capacity = 1e6;
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 0 && f.zero == 3 && !f.offload);
    EXPECT(strstr(f.reason, "per GPU (ZeRO-3 over 8 GPUs)") != NULL
           && strstr(f.reason, "offloading the optimizer and gradients would need ") != NULL
           && strstr(f.reason, " per GPU and ") != NULL);
    t.gpus = 3;
    EXPECT(predict_fit(&s, NET_BF16, &t, &f) == 0);
    EXPECT_STR(f.reason, "does not fit: a global batch of 16 sequences does not split over 3 GPUs");
}

struct count { const char *id; double params; };

static void test_workloads(void)
{
    static const struct count want[] = {     /* published parameter counts (tied heads as published) */
        { "gpt2-124m", 124439808 }, { "gpt2-355m", 354823168 }, { "gpt2-774m", 774030080 },
        { "gpt2-1.5b", 1557611200 }, { "llama-3.2-1b", 1235814400 }, { "llama-3.2-3b", 3212749824 },
        { "llama-3.1-8b", 8030261248 }, { "llama-3.1-8b-adam8", 8030261248 },
        { "llama-3.1-8b-bf16adam", 8030261248 }, { "llama-3.1-8b-lora", 8030261248 }, { "llama-3.1-8b-qlora", 8030261248 },
        { "llama-3.3-70b-qlora", 70553706496 },
    };
    EXPECT(predict_nworkloads == (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < predict_nworkloads; i++) {
        const struct predict_workload *w = &predict_workloads[i];
        EXPECT(predict_workload_find(want[i].id) == w);
        EXPECT_NEAR((double)net_param_count(&w->shape), want[i].params, 0);
        EXPECT(net_shape_problem(&w->shape) == NULL);
        EXPECT(w->tokens > 0 && w->prec == NET_BF16 && *w->basis && *w->source && *w->name && *w->kind);
        EXPECT(net_plan(&w->shape, w->prec, NULL, 0) > 0);
        /* as people run them: AMP, causal attention, published GPU counts (llm.c: 8), a stack */
        int llmc = strncmp(w->id, "gpt2-", 5) == 0;
        EXPECT(w->shape.amp && w->shape.causal && !w->shape.fused_loss);
        int peft = w->shape.lora_rank > 0;      /* LoRA and QLoRA on the Hugging Face Trainer, full training on FSDP */
        EXPECT(w->gpus == (llmc ? 8 : 1) && strcmp(w->stack, llmc ? "fused-cuda" : peft ? "hf-trainer" : "pytorch") == 0);
        EXPECT((w->shape.batch * w->shape.accum) % w->gpus == 0);
    }
    EXPECT(predict_workload_find("nonesuch") == NULL && predict_workload_find(NULL) == NULL);
    const struct predict_workload *g = predict_workload_find("gpt2-124m");
    EXPECT(g->shape.batch * g->shape.accum * g->shape.seq == 524288 && strcmp(g->kind, "pretrain") == 0);
    EXPECT_NEAR(g->tokens, 9.89e9, 1e-3);
    const struct predict_workload *l = predict_workload_find("llama-3.1-8b-lora");
    EXPECT(net_lora_count(&l->shape) == 41943040u && strcmp(l->kind, "LoRA") == 0);
    /* QLoRA 70B: the blocks' linears at 4.127 bits are 35-37 GB; embedding and head stay BF16 */
    const struct predict_workload *q = predict_workload_find("llama-3.3-70b-qlora");
    struct net_memory m;
    net_memory(&q->shape, q->prec, NET_IMPL_GPU, &m);
    EXPECT(m.frozen_linears > 35e9 && m.frozen_linears < 37e9);
    EXPECT_NEAR(m.frozen - m.frozen_linears, 2 * (m.params - (double)net_fp8_count(&q->shape)), 1e-15);
    EXPECT(m.trainable == (double)net_lora_count(&q->shape) && strcmp(q->kind, "QLoRA") == 0);
    /* a 128 GB DGX Spark after its reserve: full fine-tuning 8B with FP32 AdamW (18 B per parameter)
     * does not fit and cannot offload; 8-bit Adam (12) and BF16 AdamW (8) do, without offload */
    struct predict_fit f;
    struct predict_fit_target spark;
    predict_fit_target_for(128e9, 0, 1, 1, &spark);
    const struct predict_workload *e = predict_workload_find("llama-3.1-8b");
    EXPECT(e->shape.optimizer == NET_OPT_ADAMW);
    EXPECT(predict_fit(&e->shape, e->prec, &spark, &f) == 0 && strstr(f.reason, "share one memory pool"));
    const char *const fit8b[] = { "llama-3.1-8b-adam8", "llama-3.1-8b-bf16adam" };
    for (int i = 0; i < 2; i++) {
        const struct predict_workload *r = predict_workload_find(fit8b[i]);
        EXPECT(r->shape.optimizer == (i ? NET_OPT_ADAMW_BF16 : NET_OPT_ADAM8));
        EXPECT(predict_fit(&r->shape, r->prec, &spark, &f) == 1 && !f.offload);
        EXPECT(f.device_bytes <= spark.capacity - spark.reserve && f.device_bytes > 0.5 * spark.capacity);
        EXPECT(f.micro_batch * f.accum == 32);
    }
    EXPECT(predict_fit(&q->shape, q->prec, &spark, &f) == 1 && !f.offload);
    /* on an H100 (80 GiB, a host of 2 TB) the FP32-AdamW 8B fits only with offload */
    struct predict_fit_target h100;
    predict_fit_target_for(predict_capacity_bytes(80, "GiB"), 2e12, 0, 1, &h100);
    EXPECT(predict_fit(&e->shape, e->prec, &h100, &f) == 1 && f.offload != PREDICT_OFFLOAD_NONE);
    /* llm.c's GPT-2 124M on 8 H100s: its own micro-batch 64, no accumulation, plain data parallelism */
    predict_fit_target_for(predict_capacity_bytes(80, "GiB"), 2e12, 0, g->gpus, &h100);
    EXPECT(predict_fit(&g->shape, g->prec, &h100, &f) == 1 && f.micro_batch == 64 && f.accum == 1 && f.zero == 0);
    EXPECT(strncmp(f.reason, "fits with data parallelism over 8 GPUs: ", 40) == 0);
}

int main(void)
{
    test_decisions();
    test_capacity_reserve();
    test_zero();
    test_workloads();
    return CHECK_DONE();
}
