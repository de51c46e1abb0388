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

static void test_decisions(void)
{
    struct net_shape s = { .layers = 6, .hidden = 512, .heads = 8, .seq = 64, .vocab = 8000, .batch = 8, .accum = 1 };
    struct predict_fit f;
    double full = device_bytes(s, 0, 8), ck = device_bytes(s, 1, 8), ck4 = device_bytes(s, 1, 4),
           ck2 = device_bytes(s, 1, 2), ck1 = device_bytes(s, 1, 1);
    EXPECT(full > ck && ck > ck4 && ck4 > ck2 && ck2 > ck1);

    EXPECT(predict_fit(&s, NET_BF16, full, 0, 0, &f) == 1);         /* as is, to the byte */
    EXPECT(f.fits && !f.checkpoint && f.micro_batch == 8 && f.accum == 1 && !f.offload);
    EXPECT(f.device_bytes == full && strncmp(f.reason, "fits: ", 6) == 0);

    predict_fit(&s, NET_BF16, (full + ck) / 2, 0, 1, &f);           /* checkpointing */
    EXPECT(f.fits && f.checkpoint && f.micro_batch == 8 && f.device_bytes == ck);
    EXPECT(strncmp(f.reason, "fits with activation checkpointing: ", 36) == 0);

    predict_fit(&s, NET_BF16, (ck4 + ck2) / 2, 0, 1, &f);           /* micro-batch 2, accumulation 4 */
    EXPECT(f.fits && f.checkpoint && f.micro_batch == 2 && f.accum == 4 && f.device_bytes == ck2);
    EXPECT(strstr(f.reason, "activation checkpointing and gradient accumulation 4 (micro-batch 2): ") != NULL);

    /* below micro-batch 1 with checkpointing: offload, but never on a shared pool */
    struct net_memory m;
    net_memory(&s, NET_BF16, NET_IMPL_GPU, &m);
    double N = m.trainable, opt = 8 * N + 4 * (double)net_low_count(&s);   /* moments and the matmul weights' master */
    double lo = ck - opt, hi = ck1 < full - opt ? ck1 : full - opt, cap = (lo + hi) / 2;
    EXPECT(lo < hi);        /* offload with checkpointing fits where micro-batch 1 does not */
    EXPECT(predict_fit(&s, NET_BF16, cap, 0, 1, &f) == 0);
    EXPECT(!f.fits && !f.offload && f.micro_batch == 1 && f.checkpoint && f.device_bytes == ck1);
    EXPECT(strncmp(f.reason, "does not fit: needs ", 20) == 0 && strstr(f.reason, "share one memory pool") != NULL);
    EXPECT(predict_fit(&s, NET_BF16, cap, 0, 0, &f) == 1);
    EXPECT(f.offload == PREDICT_OFFLOAD_OPTIMIZER && f.checkpoint && f.micro_batch == 8);
    EXPECT_NEAR(f.host_bytes, 12 * N, 1e-15);
    EXPECT_NEAR(f.device_bytes, ck - opt, 1e-12);
    EXPECT(f.mem.bytes[NET_MEM_OPTIMIZER] == 0 && f.mem.bytes[NET_MEM_GRADS] == 4 * N);
    /* gradients down (FP32), the weights the device reads up: BF16 matmul copies, FP32 others */
    double low = (double)net_low_count(&s);
    EXPECT_NEAR(f.offload_traffic_bytes, 4 * N + 2 * low + 4 * (N - low), 1e-12);
    EXPECT_NEAR(f.host_optimizer_bytes, 28 * N, 1e-15);
    EXPECT(strstr(f.reason, "fits with offload of the master weights and optimizer state to host memory") == f.reason);
    /* the host too small for it */
    EXPECT(predict_fit(&s, NET_BF16, cap, 11 * N, 0, &f) == 0 && strstr(f.reason, "host memory") != NULL);
    /* offloading the gradients too: each micro-batch's go down */
    s.accum = 2;
    cap = device_bytes(s, 1, 1) - opt - 2 * N;
    EXPECT(predict_fit(&s, NET_BF16, cap, 0, 0, &f) == 1 && f.offload == PREDICT_OFFLOAD_GRADIENTS);
    EXPECT(f.mem.bytes[NET_MEM_GRADS] == 0 && f.host_bytes == 16 * N);
    EXPECT_NEAR(f.offload_traffic_bytes, 4 * N * f.accum + 2 * low + 4 * (N - low), 1e-12);
    /* nothing helps */
    EXPECT(predict_fit(&s, NET_BF16, 1e6, 0, 0, &f) == 0 && strstr(f.reason, "does not fit: needs") == f.reason);
    EXPECT(strstr(f.reason, "offloading the optimizer and gradients would need") != NULL);
}

struct count { const char *id; double params; };

static void test_workloads(void)
{
    static const struct count want[] = {     /* published parameter counts (tied heads as published) */
        { "gpt2-124m", 124439808 }, { "gpt2-355m", 354823168 }, { "gpt2-774m", 774030080 },
        { "gpt2-1.5b", 1557611200 }, { "llama-3.2-1b", 1235814400 }, { "llama-3.2-3b", 3212749824 },
        { "llama-3.1-8b", 8030261248 }, { "llama-3.1-8b-lora", 8030261248 }, { "llama-3.1-8b-qlora", 8030261248 },
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
    /* full fine-tuning 8B does not fit a shared 128 GB pool: 16+ bytes per parameter */
    struct predict_fit f;
    const struct predict_workload *e = predict_workload_find("llama-3.1-8b");
    EXPECT(predict_fit(&e->shape, e->prec, 128e9, 128e9, 1, &f) == 0 && strstr(f.reason, "share one memory pool"));
    EXPECT(predict_fit(&q->shape, q->prec, 128e9, 128e9, 1, &f) == 1 && !f.offload);
}

int main(void)
{
    test_decisions();
    test_workloads();
    return CHECK_DONE();
}
