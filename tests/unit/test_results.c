/* test_results.c: the results-file modules the commands share: a valid fixture loads, a folder
 * argument finds its results.json, a corrupt file is refused with a message that names it and
 * the documented exit code (4) from render and compare, and CSV of a small document. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "cmd/compare.h"
#include "cmd/render.h"
#include "results/csv.h"
#include "results/load.h"
#include "util/error.h"
#include "util/fsutil.h"

static char dir[256];

/* dir/name, in a buffer the next call reuses. */
static const char *path_in(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void put(const char *name, const char *text)
{
    char err[512];
    EXPECT(fs_write_atomic(path_in(name), text, strlen(text), err, sizeof err) == 0);
}

/* Runs a command with stderr sent to dir/stderr; returns its exit code, *msg what it said. */
static int quietly(int (*cmd)(const char *, const char *), const char *a, const char *b, char *msg, size_t n)
{
    char out[512];
    snprintf(out, sizeof out, "%s/stderr", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    int rc = cmd(a, b);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fd = open(out, O_RDONLY);
    ssize_t got = read(fd, msg, n - 1);
    close(fd);
    msg[got > 0 ? got : 0] = '\0';
    return rc;
}

static int render(const char *results, const char *pdf)
{
    return render_command(results, pdf, NULL);
}

static int compare_json(const char *base, const char *cur)
{
    const struct comparison_opts o = { COMPARISON_ALPHA, COMPARISON_MIN_CHANGE };
    return compare_command(base, cur, NULL, 1, &o);
}

static void test_load(const char *fixture)
{
    char err[1024];
    cJSON *r = results_load(fixture, err, sizeof err);
    EXPECT(r != NULL);
    EXPECT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "experiments")) == 1);
    EXPECT(results_check(r, "tiny.json", err, sizeof err) == 0);
    cJSON_Delete(r);

    put("results.json", "{}");                  /* a folder argument means its results.json */
    char *p = results_path(dir);
    EXPECT_STR(p, path_in("results.json"));
    free(p);
    p = results_path(fixture);
    EXPECT_STR(p, fixture);
    free(p);
}

static void test_corrupt(const char *fixture)
{
    char err[1024], msg[2048], want[1024], bad[512], pdf[512];
    snprintf(bad, sizeof bad, "%s", path_in("bad.json"));
    snprintf(pdf, sizeof pdf, "%s", path_in("out.pdf"));
    put("bad.json", "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"experiments\": [");
    EXPECT(results_load(bad, err, sizeof err) == NULL);
    snprintf(want, sizeof want, "%s:1: truncated JSON (ends before the document closes)", bad);
    EXPECT_STR(err, want);

    snprintf(want, sizeof want, "sparkreport: %s:1: truncated JSON (ends before the document closes)\n", bad);
    EXPECT(quietly(render, bad, pdf, msg, sizeof msg) == SR_EXIT_INPUT);
    EXPECT_STR(msg, want);
    EXPECT(!fs_exists(pdf));
    EXPECT(quietly(compare_json, fixture, bad, msg, sizeof msg) == SR_EXIT_INPUT);
    EXPECT_STR(msg, want);

    put("other.json", "{\"schema\": \"sparkreport/results\", \"schema_version\": 1, \"context\": {}}");
    snprintf(bad, sizeof bad, "%s", path_in("other.json"));
    snprintf(want, sizeof want, "sparkreport: %s: 'scenario' must be an object (it is missing)\n", bad);
    EXPECT(quietly(render, bad, pdf, msg, sizeof msg) == SR_EXIT_INPUT);
    EXPECT_STR(msg, want);
}

static void test_csv(void)
{
    static const char doc[] =
        "{\"experiments\": ["
        " {\"name\": \"bandwidth\", \"device\": \"cpu\", \"results\": ["
        "  {\"kernel\": \"copy\", \"gbps_best\": 12.5, \"valid\": true, \"samples_s\": [1, 2],"
        "   \"time_s\": {\"median\": 0.25}},"
        "  {\"kernel\": \"a,\\\"b\\\"\", \"gbps_best\": 3}]},"
        " {\"name\": \"train\", \"results\": [{\"loss\": 0.1}]}]}";
    cJSON *r = cJSON_Parse(doc);
    char *csv = csv_results(r);
    EXPECT_STR(csv, "experiment,device,kernel,gbps_best,valid,time_s.median,loss\n"
                    "bandwidth,cpu,copy,12.5,true,0.25,\n"
                    "bandwidth,cpu,\"a,\"\"b\"\"\",3,,,\n"
                    "train,,,,,,0.1\n");
    free(csv);
    cJSON_Delete(r);
}

int main(void)
{
    char fixture[1024], tmpl[] = "/tmp/sr-results-XXXXXX";
    const char *src = getenv("SR_SRCDIR");
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/results/tiny.json", src ? src : ".");
    EXPECT(mkdtemp(tmpl) != NULL);
    snprintf(dir, sizeof dir, "%s", tmpl);
    test_load(fixture);
    test_corrupt(fixture);
    test_csv();
    const char *names[] = { "results.json", "bad.json", "other.json", "stderr", "out.pdf" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(path_in(names[i]));
    rmdir(dir);
    return CHECK_DONE();
}
