/* hfconfigs.h: config.json files as the model pages publish them (their keys and values as transformers
 * writes them), one per family the reader takes, for the unit tests (nothing is fetched). */
#ifndef SR_TEST_HFCONFIGS_H
#define SR_TEST_HFCONFIGS_H

static const char LLAMA31_8B[] = "{\"architectures\": [\"LlamaForCausalLM\"], \"head_dim\": 128, \"hidden_size\": 4096, "
    "\"intermediate_size\": 14336, \"max_position_embeddings\": 131072, \"model_type\": \"llama\", "
    "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, "
    "\"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"llama3\"}, \"tie_word_embeddings\": false, "
    "\"torch_dtype\": \"bfloat16\", \"vocab_size\": 128256}";
static const char MISTRAL_7B_V01[] = "{\"architectures\": [\"MistralForCausalLM\"], \"hidden_size\": 4096, "
    "\"intermediate_size\": 14336, \"model_type\": \"mistral\", \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
    "\"num_key_value_heads\": 8, \"sliding_window\": 4096, \"tie_word_embeddings\": false, \"vocab_size\": 32000}";
static const char MISTRAL_7B_V03[] = "{\"architectures\": [\"MistralForCausalLM\"], \"head_dim\": 128, \"hidden_size\": 4096, "
    "\"intermediate_size\": 14336, \"model_type\": \"mistral\", \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
    "\"num_key_value_heads\": 8, \"sliding_window\": null, \"tie_word_embeddings\": false, \"vocab_size\": 32768}";
static const char QWEN25_7B[] = "{\"architectures\": [\"Qwen2ForCausalLM\"], \"hidden_size\": 3584, "
    "\"intermediate_size\": 18944, \"max_window_layers\": 28, \"model_type\": \"qwen2\", \"num_attention_heads\": 28, "
    "\"num_hidden_layers\": 28, \"num_key_value_heads\": 4, \"sliding_window\": 131072, \"tie_word_embeddings\": false, "
    "\"use_sliding_window\": false, \"vocab_size\": 152064}";
static const char QWEN3_4B[] = "{\"architectures\": [\"Qwen3ForCausalLM\"], \"head_dim\": 128, \"hidden_size\": 2560, "
    "\"intermediate_size\": 9728, \"max_window_layers\": 36, \"model_type\": \"qwen3\", \"num_attention_heads\": 32, "
    "\"num_hidden_layers\": 36, \"num_key_value_heads\": 8, \"sliding_window\": null, \"tie_word_embeddings\": true, "
    "\"use_sliding_window\": false, \"vocab_size\": 151936}";
static const char GEMMA2_9B[] = "{\"architectures\": [\"Gemma2ForCausalLM\"], \"head_dim\": 256, \"hidden_size\": 3584, "
    "\"intermediate_size\": 14336, \"model_type\": \"gemma2\", \"num_attention_heads\": 16, \"num_hidden_layers\": 42, "
    "\"num_key_value_heads\": 8, \"sliding_window\": 4096, \"vocab_size\": 256000}";
/* google/gemma-3-4b-it: the language model's keys in text_config, the heads, head size and vocabulary
   left to Gemma3TextConfig's defaults (8, 4, 256, 262,208) */
static const char GEMMA3_4B_IT[] = "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\", "
    "\"text_config\": {\"hidden_size\": 2560, \"intermediate_size\": 10240, \"model_type\": \"gemma3_text\", "
    "\"num_hidden_layers\": 34, \"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}, \"sliding_window\": 1024}, "
    "\"vision_config\": {\"hidden_size\": 1152, \"model_type\": \"siglip_vision_model\", \"num_hidden_layers\": 27}}";
/* google/gemma-3-270m (transformers 4.53 and on list each layer's attention) */
static const char GEMMA3_270M[] = "{\"architectures\": [\"Gemma3ForCausalLM\"], \"head_dim\": 256, \"hidden_size\": 640, "
    "\"intermediate_size\": 2048, \"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
    "\"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", "
    "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", "
    "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\"], "
    "\"model_type\": \"gemma3_text\", \"num_attention_heads\": 4, \"num_hidden_layers\": 18, \"num_key_value_heads\": 1, "
    "\"sliding_window\": 512, \"vocab_size\": 262144}";
static const char GPT2[] = "{\"activation_function\": \"gelu_new\", \"architectures\": [\"GPT2LMHeadModel\"], "
    "\"model_type\": \"gpt2\", \"n_ctx\": 1024, \"n_embd\": 768, \"n_head\": 12, \"n_inner\": null, \"n_layer\": 12, "
    "\"n_positions\": 1024, \"vocab_size\": 50257}";
static const char PHI3_MINI[] = "{\"architectures\": [\"Phi3ForCausalLM\"], \"hidden_size\": 3072, "
    "\"intermediate_size\": 8192, \"model_type\": \"phi3\", \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
    "\"num_key_value_heads\": 32, \"sliding_window\": 2047, \"tie_word_embeddings\": false, \"vocab_size\": 32064}";

#endif
