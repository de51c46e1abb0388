/* jobspec.h: a training job as people describe it (a scenario's sr.job { ... }: a name, the model's
 * shape typed or read from its Hugging Face config.json with the fields beside it overriding the file,
 * the method, the data and how the trainer runs it), parsed once where it enters into the projection's
 * struct predict_workload: checked and refused here, naming the field and the value; the projection
 * and the decision take the struct and never read a job field by name. (Not the MPI job of src/job/.)
 * The model experiment's older workload_* fields are read through the same parser. */
#ifndef SR_PREDICT_JOBSPEC_H
#define SR_PREDICT_JOBSPEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "predict/workloads.h"
#include "util/param.h"

/* The job's fields: limits, defaults and help (sparkreport list prints them). */
extern const struct param jobspec_params[];

#define JOBSPEC_NAME_MAX 47     /* a job's name, as the team's jobs hold it */

struct jobspec {
    struct predict_workload w;  /* its pointers point into this struct */
    char name[96], kind[16], stack[32], source[400], basis[240];
    char config[256];           /* the config.json read, as given ("" when the shape is typed) */
    char config_sha256[65];
    char overrides[256];        /* fields given beside the config that replaced its values ("layers, vocab") */
    char model_type[32];        /* the config's family */
    int tokens_given;           /* the job says its tokens (else the field's round figure, assumed) */
    cJSON *fields;              /* the normalised fields, the config's shape in place (jobspec_json) */
};

/* Reads a config.json named `path` into a new buffer (*text, *n bytes): 0, or -1 with err naming it. */
typedef int (*jobspec_reader)(const char *path, char **text, size_t *n, char *err, size_t errlen);

/* Parses `given` (a job's table as the scenario gives it, or its normalised copy in a results file)
 * into j; its config.json through `read` (NULL: the file, relative to the current directory). `prefix`
 * is what the fields are called where they came from ("" for sr.job, "workload_" for the model
 * experiment's fields), for the messages. 0, or -1 with err = "job 'NAME': FIELD ..." naming the
 * field and its value. */
int jobspec_parse(const cJSON *given, jobspec_reader read, const char *prefix, struct jobspec *j, char *err,
                  size_t errlen);

/* The job as plain data again, every field filled in, the config's values in place of the file (and
 * its path and sha256 recorded): what a results file keeps, and what jobspec_parse reads back the same. */
cJSON *jobspec_json(const struct jobspec *j);

/* Frees what jobspec_parse allocated (j->fields). */
void jobspec_free(struct jobspec *j);

#endif
