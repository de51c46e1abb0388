/* hfconfig.h: a Hugging Face config.json (a transformers model configuration, the file a model's
 * page has) read into the plan's shape: layers, hidden size, attention and key/value heads, head
 * size, MLP width, vocabulary, tied embeddings, the layout (Llama-style: SwiGLU, RMSNorm, RoPE; or
 * GPT-2's) and sliding-window layers. The families the plan describes are read; a mixture of experts
 * and any other family are refused by name. What the job does with the shape (sequence, batch,
 * method) is the job's, not the file's. */
#ifndef SR_PREDICT_HFCONFIG_H
#define SR_PREDICT_HFCONFIG_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "net/plan.h"

/* The families read, as config.json's model_type names them. */
#define HFCONFIG_FAMILIES "llama, mistral, qwen2, qwen3, gemma2, gemma3, gemma3_text, gpt2, phi3"

struct hfconfig {
    char model_type[32];        /* "llama" */
    char architecture[64];      /* architectures[0]: "LlamaForCausalLM" (empty when the file has none) */
    int llama;                  /* SwiGLU (or Gemma's gated GELU), RMSNorm, RoPE, no biases; else GPT-2's */
    struct net_shape shape;     /* layers, hidden, heads, kv_heads, head_dim (0: hidden / heads), ffn, vocab,
                                   tied, window, window_layers; the layout flags; nothing else set */
};

/* Reads config.json text (named `name` in messages) into c. -1 with "NAME: ..." naming the key and
 * what it holds (a key missing, of the wrong type or out of range, a mixture of experts, a family
 * the plan does not describe) or the JSON's fault (json_parse: the line). A multimodal config
 * (Gemma 3's) is read through its text_config. */
int hfconfig_parse(const char *name, const char *text, size_t n, struct hfconfig *c, char *err, size_t errlen);

/* The same from a file (at most 1 MiB: a configuration, not weights). */
int hfconfig_load(const char *path, struct hfconfig *c, char *err, size_t errlen);

#endif
