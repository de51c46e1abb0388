/* test_hfconfig.c: config.json files as the model pages publish them (their keys and values as
 * transformers writes them, written here: nothing is fetched), one per family the reader takes, each
 * read into the shape typed by hand from the model card; Gemma 3's multimodal file through its
 * text_config with its class's defaults; mixture-of-experts files, another family, a truncated file
 * and keys of the wrong type refused naming the file and the key. */
#include <string.h>

#include "check.h"
#include "predict/hfconfig.h"
#include "predict/workloads.h"

#include "hfconfigs.h"

static void expect_shape(const char *name, const char *text, int layers, int hidden, int heads, int kv, int head_dim,
                         int ffn, int vocab, int tied, int llama, int window, int window_layers)
{
    struct hfconfig c;
    char err[512] = "";
    int rc = hfconfig_parse(name, text, strlen(text), &c, err, sizeof err);
    if (rc != 0)
        printf("%s: %s\n", name, err);
    EXPECT(rc == 0);
    const struct net_shape *s = &c.shape;
    EXPECT(s->layers == layers && s->hidden == hidden && s->heads == heads && net_kv_heads(s) == kv);
    EXPECT(net_head_dim(s) == head_dim && net_ffn(s) == ffn && s->vocab == vocab && s->tied == tied);
    EXPECT(c.llama == llama && s->window == window && s->window_layers == window_layers);
    EXPECT(llama ? s->mlp == NET_MLP_SWIGLU && s->norm == NET_NORM_RMS && s->rope && s->nobias
                 : s->mlp == NET_MLP_GELU && s->norm == NET_NORM_LAYER && !s->rope && !s->nobias);
}

static void families(void)
{
    expect_shape("llama-3.1-8b", LLAMA31_8B, 32, 4096, 32, 8, 128, 14336, 128256, 0, 1, 0, 0);
    expect_shape("mistral-7b-v0.1", MISTRAL_7B_V01, 32, 4096, 32, 8, 128, 14336, 32000, 0, 1, 4096, 0);
    expect_shape("mistral-7b-v0.3", MISTRAL_7B_V03, 32, 4096, 32, 8, 128, 14336, 32768, 0, 1, 0, 0);
    expect_shape("qwen2.5-7b", QWEN25_7B, 28, 3584, 28, 4, 128, 18944, 152064, 0, 1, 0, 0);
    expect_shape("qwen3-4b", QWEN3_4B, 36, 2560, 32, 8, 128, 9728, 151936, 1, 1, 0, 0);
    expect_shape("gemma-2-9b", GEMMA2_9B, 42, 3584, 16, 8, 256, 14336, 256000, 1, 1, 4096, 21);
    expect_shape("gemma-3-4b-it", GEMMA3_4B_IT, 34, 2560, 8, 4, 256, 10240, 262208, 1, 1, 1024, 29);
    expect_shape("gemma-3-270m", GEMMA3_270M, 18, 640, 4, 1, 256, 2048, 262144, 1, 1, 512, 15);
    expect_shape("gpt2", GPT2, 12, 768, 12, 12, 64, 3072, 50257, 1, 0, 0, 0);
    expect_shape("phi-3-mini", PHI3_MINI, 32, 3072, 32, 32, 96, 8192, 32064, 0, 1, 2047, 0);
    struct hfconfig c;
    char err[256];
    EXPECT(hfconfig_parse("q3", QWEN3_4B, strlen(QWEN3_4B), &c, err, sizeof err) == 0);
    EXPECT_STR(c.model_type, "qwen3");
    EXPECT_STR(c.architecture, "Qwen3ForCausalLM");
    EXPECT(c.shape.head_dim == 128 && net_q_width(&c.shape) == 4096);   /* 32 heads of 128 on a 2560 model */
}

static void refused(void)
{
    static const struct { const char *text, *want; } bad[] = {
        { "{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"num_local_experts\": 8, \"num_hidden_layers\": 32}",
          "mx.json: a mixture of experts (model_type 'mixtral', key 'num_local_experts'): the plan has no routed "
          "experts yet, so it would time every expert on every token" },
        { "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048}",
          "mx.json: model_type 'qwen3_moe' is a mixture of experts: the plan has no routed experts yet, so it would time "
          "every expert on every token" },
        { "{\"model_type\": \"falcon\", \"hidden_size\": 4544}",
          "mx.json: model_type 'falcon' is not a family the plan describes (" HFCONFIG_FAMILIES " are read)" },
        { "{\"hidden_size\": 4096}",
          "mx.json: key 'model_type' is missing: it says which family of model the file describes (" HFCONFIG_FAMILIES
          " are read)" },
        { "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 32, "
          "\"vocab_size\": 128256}",
          "mx.json: key 'num_hidden_layers' is missing (a llama config.json has it)" },
        { "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 32, "
          "\"num_hidden_layers\": \"32\", \"vocab_size\": 128256}",
          "mx.json: key 'num_hidden_layers' must be a whole number from 1 to 16777216, got \"32\"" },
        { "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 30, "
          "\"num_hidden_layers\": 32, \"vocab_size\": 128256}",
          "mx.json: key 'head_dim' is missing (a llama config.json has it)" },
        { "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 32, "
          "\"num_hidden_layers\": 32, \"vocab_size\": 128256, \"tie_word_embeddings\": 0}",
          "mx.json: key 'tie_word_embeddings' must be true or false" },
        { "[1, 2]", "mx.json: not a config.json (the document is not an object)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hfconfig c;
        char err[512] = "";
        EXPECT(hfconfig_parse("mx.json", bad[i].text, strlen(bad[i].text), &c, err, sizeof err) == -1);
        EXPECT_STR(err, bad[i].want);
    }
    /* a truncated file: the JSON reader's own message, with the file and line */
    struct hfconfig c;
    char err[512] = "";
    static const char cut[] = "{\"model_type\": \"llama\",\n \"hidden_size\": 40";
    EXPECT(hfconfig_parse("cut.json", cut, strlen(cut), &c, err, sizeof err) == -1);
    EXPECT(strncmp(err, "cut.json:", 9) == 0);
    EXPECT(hfconfig_load("/nonexistent/config.json", &c, err, sizeof err) == -1
           && strstr(err, "/nonexistent/config.json") != NULL);
}

/* The shipped config.json files of the reference workloads (data/models/, as their model pages publish
 * them): each gives the shape workloads.c's table holds. */
static void shipped(void)
{
    static const struct { const char *file, *workload; } pairs[] = {
        { "data/models/gpt2.json", "gpt2-124m" }, { "data/models/gpt2-medium.json", "gpt2-355m" },
        { "data/models/gpt2-large.json", "gpt2-774m" }, { "data/models/gpt2-xl.json", "gpt2-1.5b" },
        { "data/models/llama-3.2-1b.json", "llama-3.2-1b" }, { "data/models/llama-3.2-3b.json", "llama-3.2-3b" },
        { "data/models/llama-3.1-8b.json", "llama-3.1-8b" },
        { "data/models/llama-3.3-70b-instruct.json", "llama-3.3-70b-qlora" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct hfconfig c;
        char err[512] = "";
        int rc = hfconfig_load(pairs[i].file, &c, err, sizeof err);
        if (rc != 0)
            printf("%s\n", err);
        const struct net_shape *a = &c.shape, *b = &predict_workload_find(pairs[i].workload)->shape;
        EXPECT(rc == 0 && a->layers == b->layers && a->hidden == b->hidden && a->heads == b->heads
               && net_kv_heads(a) == net_kv_heads(b) && net_ffn(a) == net_ffn(b) && a->vocab == b->vocab
               && a->tied == b->tied && net_head_dim(a) == net_head_dim(b) && a->mlp == b->mlp && a->norm == b->norm
               && a->rope == b->rope && a->nobias == b->nobias);
    }
}

int main(void)
{
    families();
    refused();
    shipped();
    return CHECK_DONE();
}
