/* hfconfig.c: a Hugging Face config.json read into the plan's shape, family by family (the keys each
 * family's transformers configuration class defines), refused naming the file and the key. Reading
 * the file and its JSON grammar is util/json.c's; what the shape is trained on is the job's. */
#include "predict/hfconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/json.h"

/* Mixture-of-experts families and the keys that give one away in any family: the plan has no routed
 * experts, so their FLOPs and bytes per token would be a dense model's. */
static const char *const moe_types[] = { "mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "dbrx",
                                         "olmoe", "phimoe", "jamba", "granitemoe", "gpt_oss", "llama4", "llama4_text",
                                         "glm4_moe", "minimax", "ernie4_5_moe" };
static const char *const moe_keys[] = { "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
                                        "moe_intermediate_size" };

/* Keys a family's configuration class fills when a file leaves them out (transformers'
 * models/<family>/configuration_<family>.py): Gemma 3 4B's config.json, for one, gives no heads or
 * vocabulary; Mistral's class windows every layer at 4096 unless the file says null. */
static const struct { const char *type, *key; int value; } family_defaults[] = {
    { "gemma3_text", "num_attention_heads", 8 }, { "gemma3_text", "num_key_value_heads", 4 },
    { "gemma3_text", "head_dim", 256 }, { "gemma3_text", "vocab_size", 262208 },
    { "gemma3_text", "sliding_window", 4096 }, { "gemma3_text", "sliding_window_pattern", 6 },
    { "gemma2", "num_attention_heads", 8 }, { "gemma2", "num_key_value_heads", 4 }, { "gemma2", "head_dim", 256 },
    { "gemma2", "vocab_size", 256000 }, { "gemma2", "sliding_window", 4096 },
    { "mistral", "sliding_window", 4096 },
};

struct reader {
    const char *name;
    const char *type;           /* model_type, "gemma3_text" for Gemma 3's text_config */
    const cJSON *cfg;           /* the object the keys are read from (text_config for a multimodal one) */
    char *err;
    size_t errlen;
    int failed;
};

/* A positive whole number at key; dflt (> 0) when the key is absent or null, else the key is required. */
static int whole(struct reader *r, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->cfg, key);
    if (r->failed)
        return 0;
    for (size_t i = 0; i < sizeof family_defaults / sizeof family_defaults[0]; i++)
        if (strcmp(family_defaults[i].type, r->type) == 0 && strcmp(family_defaults[i].key, key) == 0)
            dflt = family_defaults[i].value;
    if ((!v || cJSON_IsNull(v)) && dflt > 0)
        return dflt;
    if (!v || cJSON_IsNull(v)) {
        snprintf(r->err, r->errlen, "%s: key '%s' is missing (a %s config.json has it)", r->name, key,
                 json_str(r->cfg, "model_type", "transformer"));
    } else if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1
               || v->valuedouble > 16777216) {
        char *t = cJSON_PrintUnformatted(v);
        snprintf(r->err, r->errlen, "%s: key '%s' must be a whole number from 1 to 16777216, got %.40s", r->name, key,
                 t ? t : "?");
        cJSON_free(t);
    } else {
        return (int)v->valuedouble;
    }
    r->failed = 1;
    return 0;
}

static int flag(struct reader *r, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->cfg, key);
    if (r->failed || !v || cJSON_IsNull(v))
        return dflt;
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    snprintf(r->err, r->errlen, "%s: key '%s' must be true or false", r->name, key);
    r->failed = 1;
    return dflt;
}

static int listed(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

/* The layers that attend within a window: layer_types' "sliding_attention" entries where the file
 * lists them (transformers 4.53 on), else Gemma 3's pattern (every p-th layer global), Gemma 2's
 * alternation, or every layer (Mistral, Phi-3, Qwen with use_sliding_window). */
static void window_of(struct reader *r, const char *type, struct net_shape *s)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(r->cfg, "sliding_window"), *e;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(r->cfg, "layer_types");
    int qwen = strncmp(type, "qwen", 4) == 0, dflt = 0;
    for (size_t i = 0; i < sizeof family_defaults / sizeof family_defaults[0]; i++)
        dflt |= strcmp(family_defaults[i].type, r->type) == 0 && strcmp(family_defaults[i].key, "sliding_window") == 0;
    if ((!w && !dflt) || cJSON_IsNull(w) || (qwen && !flag(r, "use_sliding_window", 0)))
        return;
    s->window = whole(r, "sliding_window", 0);
    if (cJSON_IsArray(types)) {
        s->window_layers = 0;
        cJSON_ArrayForEach(e, types) s->window_layers += cJSON_IsString(e) && strcmp(e->valuestring, "sliding_attention") == 0;
    } else if (strncmp(type, "gemma3", 6) == 0) {
        int p = whole(r, "sliding_window_pattern", 6);
        s->window_layers = s->layers - s->layers / p;
    } else if (strcmp(type, "gemma2") == 0) {
        s->window_layers = (s->layers + 1) / 2;
    } else if (qwen) {
        int full = whole(r, "max_window_layers", s->layers);
        s->window_layers = full < s->layers ? s->layers - full : 0;
        s->window = s->window_layers > 0 ? s->window : 0;
    }
}

static void read_llama(struct reader *r, const char *type, struct hfconfig *c)
{
    struct net_shape *s = &c->shape;
    c->llama = 1;
    s->layers = whole(r, "num_hidden_layers", 0);
    s->hidden = whole(r, "hidden_size", 0);
    s->heads = whole(r, "num_attention_heads", 0);
    s->kv_heads = whole(r, "num_key_value_heads", s->heads > 0 ? s->heads : 1);
    s->ffn = whole(r, "intermediate_size", 0);
    s->vocab = whole(r, "vocab_size", 0);
    int d = whole(r, "head_dim", s->heads > 0 && s->hidden % s->heads == 0 ? s->hidden / s->heads : 0);
    s->head_dim = s->heads > 0 && d * s->heads == s->hidden ? 0 : d;
    /* the families' own defaults: Gemma's embedding is tied, Llama's, Mistral's and Phi-3's head is not */
    s->tied = flag(r, "tie_word_embeddings", strncmp(type, "gemma", 5) == 0);
    s->mlp = NET_MLP_SWIGLU;
    s->norm = NET_NORM_RMS;
    s->nobias = s->rope = 1;
    window_of(r, type, s);
}

static void read_gpt2(struct reader *r, struct hfconfig *c)
{
    struct net_shape *s = &c->shape;
    s->layers = whole(r, "n_layer", 0);
    s->hidden = whole(r, "n_embd", 0);
    s->heads = whole(r, "n_head", 0);
    s->vocab = whole(r, "vocab_size", 0);
    s->ffn = whole(r, "n_inner", s->hidden > 0 ? 4 * s->hidden : 1);
    s->ffn = s->ffn == 4 * s->hidden ? 0 : s->ffn;
    s->tied = flag(r, "tie_word_embeddings", 1);
}

static int refuse_moe(struct reader *r, const char *type)
{
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->cfg, moe_keys[i]);
        if (v && !cJSON_IsNull(v) && !(cJSON_IsNumber(v) && v->valuedouble == 0)) {
            snprintf(r->err, r->errlen, "%s: a mixture of experts (model_type '%s', key '%s'): the plan has no routed "
                     "experts yet, so it would time every expert on every token", r->name, type, moe_keys[i]);
            return -1;
        }
    }
    if (listed(type, moe_types, sizeof moe_types / sizeof moe_types[0])) {
        snprintf(r->err, r->errlen, "%s: model_type '%s' is a mixture of experts: the plan has no routed experts yet, "
                 "so it would time every expert on every token", r->name, type);
        return -1;
    }
    return 0;
}

/* The shape from a parsed document; -1 with the message. */
static int from_json(const char *name, const cJSON *doc, struct hfconfig *c, char *err, size_t errlen)
{
    struct reader r = { name, "", doc, err, errlen, 0 };
    const cJSON *text_cfg = cJSON_GetObjectItemCaseSensitive(doc, "text_config");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(doc, "architectures");
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(doc)) {
        snprintf(err, errlen, "%s: not a config.json (the document is not an object)", name);
        return -1;
    }
    if (cJSON_IsArray(arch) && cJSON_IsString(arch->child))
        snprintf(c->architecture, sizeof c->architecture, "%s", arch->child->valuestring);
    if (cJSON_IsObject(text_cfg))       /* a multimodal model (Gemma 3 4B and up): its language model */
        r.cfg = text_cfg;
    const char *type = json_str(r.cfg, "model_type", json_str(doc, "model_type", NULL));
    if (!type) {
        snprintf(err, errlen, "%s: key 'model_type' is missing: it says which family of model the file describes (%s "
                 "are read)", name, HFCONFIG_FAMILIES);
        return -1;
    }
    snprintf(c->model_type, sizeof c->model_type, "%s", type);
    r.type = r.cfg != doc && strcmp(type, "gemma3") == 0 ? "gemma3_text" : type;
    static const char *const llama_like[] = { "llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "gemma3_text",
                                              "phi3" };
    if (refuse_moe(&r, r.type) != 0)
        return -1;
    if (listed(type, llama_like, sizeof llama_like / sizeof llama_like[0]))
        read_llama(&r, r.type, c);
    else if (strcmp(type, "gpt2") == 0)
        read_gpt2(&r, c);
    else {
        snprintf(err, errlen, "%s: model_type '%s' is not a family the plan describes (%s are read)", name, type,
                 HFCONFIG_FAMILIES);
        return -1;
    }
    if (r.failed)
        return -1;
    struct net_shape one = c->shape;    /* the architecture alone: one sequence of one token */
    one.seq = one.batch = one.accum = 1;
    const char *why = net_shape_problem(&one);
    if (why) {
        snprintf(err, errlen, "%s: %s", name, why);
        return -1;
    }
    return 0;
}

int hfconfig_parse(const char *name, const char *text, size_t n, struct hfconfig *c, char *err, size_t errlen)
{
    cJSON *doc = json_parse(name, text, n, err, errlen);
    int rc = doc ? from_json(name, doc, c, err, errlen) : -1;
    cJSON_Delete(doc);
    return rc;
}

int hfconfig_load(const char *path, struct hfconfig *c, char *err, size_t errlen)
{
    cJSON *doc = json_load(path, 1 << 20, err, errlen);
    int rc = doc ? from_json(path, doc, c, err, errlen) : -1;
    cJSON_Delete(doc);
    return rc;
}
