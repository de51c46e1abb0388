/* list.c: the `list` command: the experiments and their parameters, the scenario's fields, the
 * templates, the shipped scenarios and the catalog's systems, from the same tables and folder the
 * run and the report use. */
#include "cmd/list.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "decide/team.h"
#include "exp/experiment.h"
#include "predict/jobspec.h"
#include "predict/measured.h"
#include "lua/embedded.h"
#include "lua/state.h"
#include "util/datadir.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/param.h"

/* Catalog rows through the Lua library, so `list` shows exactly what reports use. */
static int list_catalog(void)
{
    char err[512];
    lua_State *L = sr_lua_new(SR_LUA_MEM_LIMIT);
    if (sr_lua_require(L, "sparkreport.catalog", err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        sr_lua_close(L);
        return -1;
    }
    lua_getfield(L, -1, "load");
    if (sr_lua_pcall(L, 0, 1, err, sizeof err, NULL) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        sr_lua_close(L);
        return -1;
    }
    lua_getfield(L, -1, "rows");
    printf("catalog systems (data/systems.csv; spec figures, sources in the report) and their roles: subject (the\n"
           "system the report is about), compared (the systems it is compared with), shared (N people share one):\n");
    int rows = lua_gettop(L);
    for (lua_Integer i = 1; lua_rawgeti(L, rows, i) == LUA_TTABLE; i++) {
        lua_getfield(L, -1, "id");
        lua_getfield(L, -2, "name");
        lua_getfield(L, -3, "memory_gb");
        lua_getfield(L, -4, "mem_bw_gbs");
        printf("  %-20s %-44s %6s GB %7s GB/s", lua_tostring(L, -4), lua_tostring(L, -3),
               lua_isnil(L, -2) ? "?" : lua_tostring(L, -2), lua_isnil(L, -1) ? "?" : lua_tostring(L, -1));
        lua_pop(L, 4);
        if (lua_getfield(L, -1, "roles") == LUA_TTABLE)
            for (lua_Integer k = 1; lua_rawgeti(L, -1, k) == LUA_TSTRING; k++) {
                printf("%s%s", k > 1 ? ", " : "  ", lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        printf("\n");
        lua_settop(L, rows);
    }
    sr_lua_close(L);
    return 0;
}

/* The shipped scenarios, one name a line, or why there are none. */
static void list_scenarios(void)
{
    char names[4096], err[FS_PATH_MAX + 64];
    int n = datadir_scenarios(names, sizeof names, "\n  ", err, sizeof err);
    printf("shipped scenarios (sparkreport run NAME; a file NAME here comes first), in %s/scenarios:\n", datadir_path());
    if (n < 0)
        printf("  none: %s (`make install` puts them there; a scenario file runs by its path)\n", err);
    else
        printf("  %s\n", n > 0 ? names : "none");
    printf("\n");
}

int list_command(void)
{
    char err[FS_PATH_MAX + 64];
    if (datadir_check_env(err, sizeof err) != 0) {
        fprintf(stderr, "sparkreport: %s\n", err);
        return SR_EXIT_USAGE;
    }
    printf("experiments (sr.NAME { ... } in a scenario):\n");
    for (const struct experiment *e = experiments; e->name; e++) {
        printf("  %s: %s\n", e->name, e->help);
        param_print_help(stdout, e->params);
    }
    printf("\nscenario fields (sr.scenario { ... }):\n");
    param_print_help(stdout, scenario_params);
    printf("\nthe team (team = sr.team { ... } in a scenario; the first page answers for it):\n");
    printf("    jobs               the team's jobs: { { WORKLOAD, per_month = N, tokens = T }, ... } (workloads of sr.model),\n"
           "                       each job's fields:\n");
    param_print_help(stdout, team_job_params());
    printf("    offers             rental offers replacing data/offers.csv: { { id, system, provider, usd_per_gpu_hour,\n"
           "                       instance_gpus, billing_step_s, min_billed_s, source, date }, ... }\n");
    param_print_help(stdout, team_params);
    printf("\na job (sr.job { ... } in a scenario; the team's jobs and sr.measured name it; a config.json shipped with "
           "sparkreport:\n  data/models/gpt2.json, gpt2-medium, gpt2-large, gpt2-xl, llama-3.2-1b, llama-3.2-3b, "
           "llama-3.1-8b, llama-3.3-70b-instruct):\n");
    param_print_help(stdout, jobspec_params);
    printf("\na rate the team measured (sr.measured { ... }: it calibrates its job's rows):\n");
    param_print_help(stdout, measured_params);
    printf("\na system of your own (sr.system { ... } in a scenario: one GPU's figures, projected beside the compared "
           "systems\n  as a catalog row is; sr.measured may name it; data/README.md says what each column means):\n"
           "    id, name           required: its id (lower-case, not a catalog system's) and name\n"
           "    memory_gb, mem_bw_gbs, bf16_tflops, sms\n"
           "                       required: memory (GB), bandwidth (GB/s), dense BF16 peak (TFLOPS), streaming\n"
           "                       multiprocessors (its CUDA device query)\n"
           "    generation         ampere, hopper, blackwell or gb10: the stack profile it takes (none: Hopper's, its\n"
           "                       band spanning every generation's); span = true: that band whatever the generation\n"
           "    unified            true: one memory pool shared with the CPU (a Spark's kind)\n"
           "    fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, fp8_tflops, fp4_tflops, power_w, price_usd,\n"
           "    system_power_w, host_memory_gb, host_bw_gbs, cpu_gpu_link_gbs\n"
           "                       figures above 0, as systems.csv's columns of those names\n"
           "    memory, memory_unit, confidence, notes, sources, gpu_source\n"
           "                       text, as systems.csv's (memory_unit GB or GiB; GB when not given)\n");
    printf("\ntemplates (a scenario's template = NAME; built in, their source in %s/templates):\n", datadir_path());
    for (const struct embedded_file *f = embedded_files; f->name; f++)
        if (!strncmp(f->name, "templates/", 10))
            printf("  %.*s\n", (int)(strlen(f->name) - 14), f->name + 10);
    printf("\n");
    list_scenarios();
    return list_catalog() == 0 ? SR_EXIT_OK : SR_EXIT_FAILURE;
}

