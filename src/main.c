/* main.c: the command line: parses arguments and hands each command to its owner (cmd/run.c,
 * cmd/render.c, cmd/compare.c, cmd/info.c and cmd/list.c). Exit codes are
 * documented here, in --help, and in sparkreport.1. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cmd/compare.h"
#include "cmd/info.h"
#include "cmd/list.h"
#include "cmd/render.h"
#include "cmd/run.h"
#include "config.h"
#include "gitrev.h"
#include "exp/collective/collective.h"
#include "exp/tenants/tenants.h"
#include "job/job.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/vmlimit.h"

static const char usage[] =
    "Usage: sparkreport COMMAND [OPTIONS]\n"
    "\n"
    "Measures this machine (memory bandwidth, ...), projects training time onto the systems of a\n"
    "cited catalog, and writes a PDF report.\n"
    "\n"
    "Commands:\n"
    "  run SCENARIO [-o DIR] [--set KEY=VALUE]... [-q]\n"
    "        run a scenario: a file, or when no file of that name is here, the name of a\n"
    "        shipped scenario (default, quick, ...: list shows them); writes\n"
    "        DIR/<UTC stamp>-<host>-<scenario>/ with report.pdf (the decision report),\n"
    "        annex.pdf (the technical annex), results.json, results.csv and run.log, and\n"
    "        points DIR/latest at it (DIR defaults to ./reports, in the current folder).\n"
    "        KEY is a scenario field (budget_s=60) or EXPERIMENT.PARAMETER (bandwidth.min_reps=3).\n"
    "  render RESULTS.json [-o PDF] [--annex PDF]\n"
    "        draw the decision report and the technical annex again from a results file\n"
    "        (default: report.pdf and annex.pdf beside it; with -o X.pdf, the annex is\n"
    "        X-annex.pdf unless --annex names it); with SOURCE_DATE_EPOCH set, the same\n"
    "        input gives byte-identical PDFs\n"
    "  compare BASELINE CURRENT [-o PDF] [--json] [--alpha P] [--threshold PCT]\n"
    "        compare two runs (run folders such as reports/latest, or results.json files)\n"
    "        result by result: a result is slower or faster when the two-sided Mann-Whitney\n"
    "        U test on its raw samples gives p < P (default 0.01) and its median moved by at\n"
    "        least PCT % (default 5); prints the verdicts and writes the regression report\n"
    "        (default ./comparison.pdf), or with --json prints the comparison document\n"
    "  info [--json]\n"
    "        describe this machine: CPU, caches, memory, OpenMP, BLAS, CUDA devices\n"
    "  list  experiments with their parameters, templates, shipped scenarios, catalog systems\n"
    "  tenant SPEC\n"
    "        internal: one tenant process of the tenants experiment (it starts them)\n"
    "\n"
    "Options:\n"
    "  -o, --output PATH   where run and render write\n"
    "  -s, --set KEY=VALUE override a scenario field or experiment parameter\n"
    "  -q, --quiet         no progress on stderr\n"
    "  -h, --help          this text\n"
    "  -V, --version       version and git revision\n"
    "\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  the environment failed (I/O, memory, a library); nothing half-written is left\n"
    "  2  bad command line\n"
    "  3  the scenario has an error (message FILE:LINE: ...); nothing was measured or written\n"
    "  4  a results file is unreadable or invalid; for run, a built-in data file (data/NAME.csv,\n"
    "     edited and rebuilt) is invalid: FILE:LINE: COLUMN ..., nothing measured or written\n"
    "  5  the run finished and wrote its report, but a measurement failed validation, an\n"
    "     experiment could not run, or a stage's records were left out (the report says which)\n"
    "  6  compare, or a run whose scenario names a baseline: some result is slower than the\n"
    "     baseline (a run that also failed validation exits 5)\n"
    "  130, 143  run stopped by SIGINT (Ctrl-C) or SIGTERM: after the current measurement it\n"
    "     wrote results.json marked \"partial\" and a report that says so; a second signal\n"
    "     stops at once and removes the unfinished run folder\n"
    "     (after the measurements: they are complete; only the comparison is cut short)\n"
    "  129, 141  run stopped by SIGHUP or SIGPIPE (its output's reader left): at once, the\n"
    "     unfinished run folder removed; other signals (SIGQUIT, SIGUSR1, SIGXCPU, ...) likewise,\n"
    "     128 + their number; SIGPROF is ignored\n"
    "  What can be checked before measuring is (2: SOURCE_DATE_EPOCH, SPARKREPORT_FONT_DIR, _DATA_DIR,\n"
    "  _CATALOG_DIR, OMP_*/OPENBLAS_* thread variables, an output that is an input; 1: the output's kind\n"
    "  and length, the open-file and stack limits, standard output that cannot be written; 3: UTF-8,\n"
    "  title length and characters); limits: sparkreport.1\n"
    "\n"
    "Environment: SOURCE_DATE_EPOCH (PDF dates; 0 .. 253402300799), SPARKREPORT_FONT_DIR (DejaVu fonts),\n"
    "SPARKREPORT_CATALOG_DIR (data files read instead of the build's: systems of your own),\n"
    "OMP_NUM_THREADS (threads of the CPU experiments, 1 .. 4096), SPARKREPORT_SCENARIO_TIME_S (processor\n"
    "seconds a scenario's code may use before it returns its experiments; default 10),\n"
    "SPARKREPORT_MPI_JOIN_S (seconds the ranks of an mpirun job may take to join; default 60),\n"
    "SPARKREPORT_DATA_DIR (its scenarios/ holds the shipped scenarios; default\n" SR_PKGDATADIR ").\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sparkreport: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see sparkreport --help)\n");
    return SR_EXIT_USAGE;
}

/* The command line as a POSIX shell reads it back: words of safe characters as they are,
 * others in single quotes, a quote inside written '\''. The report prints it as the rerun command. */
static char *command_line(int argc, char **argv)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
    size_t len = 16;
    for (int i = 1; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    char *s = xmalloc(len), *p = s;
    p += sprintf(p, "sparkreport");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        *p++ = ' ';
        if (*a && strspn(a, safe) == strlen(a)) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++)
            p += *a == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *a);
        *p++ = '\'';
        *p = '\0';
    }
    return s;
}

static int cmd_run(int argc, char **argv)
{
    struct run_opts o = { .outdir = "reports" };
    const char **sets = xcalloc((size_t)argc, sizeof *sets);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
            o.outdir = argv[++i];
        else if ((!strcmp(a, "-s") || !strcmp(a, "--set")) && i + 1 < argc)
            sets[o.nsets++] = argv[++i];
        else if (!strncmp(a, "--set=", 6))
            sets[o.nsets++] = a + 6;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            o.quiet = 1;
        else if (a[0] == '-' && a[1]) {
            free(sets);
            return usage_error(i + 1 == argc && (!strcmp(a, "-o") || !strcmp(a, "--set") || !strcmp(a, "-s"))
                               ? "option '%s' needs a value" : "unknown option '%s' for run", a);
        } else if (!o.scenario)
            o.scenario = a;
        else {
            free(sets);
            return usage_error("run takes one scenario; extra argument '%s'", a);
        }
    }
    if (!o.scenario) {
        free(sets);
        return usage_error("%s", "run needs a scenario, a file or a shipped scenario's name, e.g. sparkreport run quick");
    }
    o.sets = sets;
    char *cmd = command_line(argc, argv);
    o.command = cmd;
    int rc = run_command(&o);
    free(cmd);
    free(sets);
    return rc;
}

static int cmd_render(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *annex = NULL;
    for (int i = 2; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--annex") && i + 1 < argc)
            annex = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1])
            return usage_error("unknown option '%s' for render", argv[i]);
        else if (!in)
            in = argv[i];
        else
            return usage_error("render takes one results file; extra argument '%s'", argv[i]);
    }
    if (!in)
        return usage_error("%s", "render needs a results file, e.g. sparkreport render reports/latest/results.json");
    return render_command(in, out, annex);
}

/* The value of a number option: all of text, within lo .. hi. */
static int number_arg(const char *text, double lo, double hi, double *v)
{
    char *end;
    *v = strtod(text, &end);
    return *text && *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static int cmd_compare(int argc, char **argv)
{
    const char *sides[2] = { NULL, NULL }, *out = NULL;
    int as_json = 0, n = 0;
    struct comparison_opts o = { COMPARISON_ALPHA, COMPARISON_MIN_CHANGE };
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_value) {
            out = argv[++i];
        } else if (!strcmp(a, "--json")) {
            as_json = 1;
        } else if (!strcmp(a, "--alpha") && has_value) {
            if (number_arg(argv[++i], 1e-12, 0.5, &o.alpha) != 0)
                return usage_error("--alpha must be a number from 1e-12 to 0.5, got '%s'", argv[i]);
        } else if (!strcmp(a, "--threshold") && has_value) {
            if (number_arg(argv[++i], 0, 1000, &o.min_change) != 0)
                return usage_error("--threshold must be a percentage from 0 to 1000, got '%s'", argv[i]);
            o.min_change /= 100.0;
        } else if (a[0] == '-' && a[1]) {
            return usage_error(!has_value && (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--alpha")
                                              || !strcmp(a, "--threshold"))
                               ? "option '%s' needs a value" : "unknown option '%s' for compare", a);
        } else if (n < 2) {
            sides[n++] = a;
        } else {
            return usage_error("compare takes two results, BASELINE and CURRENT; extra argument '%s'", a);
        }
    }
    if (n < 2)
        return usage_error("%s", "compare needs two results, e.g. sparkreport compare reports/<run> reports/latest");
    return compare_command(sides[0], sides[1], out, as_json, &o);
}

static int cmd_info(int argc, char **argv)
{
    int as_json = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else
            return usage_error("unknown argument '%s' for info", argv[i]);
    }
    return info_command(as_json);
}

/* Runs before every shared library's constructor (the executable's .preinit_array): under a
 * low address-space limit OpenBLAS's constructor would otherwise wait for ever for its buffers. */
static void startup_limits(int argc, char **argv, char **envp)
{
    static char msg[512];
    int rc = vmlimit_prepare_blas(msg, sizeof msg);
    (void)argc, (void)argv, (void)envp;
    signal(SIGPROF, SIG_IGN);           /* from the first moment: a profiler's stray SIGPROF ends nothing */
    if (rc > 0)
        vmlimit_watch_start(msg, VMLIMIT_WATCH_S);
    if (rc < 0) {
        ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
        (void)w;
        _exit(SR_EXIT_FAILURE);
    }
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit_startup)(int, char **, char **) =
    startup_limits;

/* Every command's standard output ends here: a write that failed (a full disk, a file-size limit)
 * makes the command fail with the system's reason, never exit 0 with a truncated output. */
static int close_stdout(int rc)
{
    errno = 0;
    int bad = ferror(stdout), e = 0, fd = fileno(stdout);
    if (fflush(stdout) != 0)
        e = errno;
    bad |= ferror(stdout);
    if (bad && !e && fd >= 0 && write(fd, "\n", 1) < 0)   /* the failed write's reason was not kept: ask once more */
        e = errno;
    errno = 0;
    if (fclose(stdout) != 0 && !e)
        e = errno;
    if (!bad && !e)
        return rc;
    fprintf(stderr, "sparkreport: cannot write to standard output: %s\n",
            e ? strerror(e) : "a write failed (the output is incomplete)");
    return rc == SR_EXIT_OK || rc == SR_EXIT_INVALID || rc == SR_EXIT_SLOWER ? SR_EXIT_FAILURE : rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    vmlimit_watch_stop();       /* the libraries have loaded */
    signal(SIGXFSZ, SIG_IGN);   /* past a file size limit, a write fails with EFBIG and we say so */
    signals_catch(0, 0);        /* a signal removes any temporary file; run makes the first gentle */
    return close_stdout(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return SR_EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("sparkreport %s (git %s)\n", PACKAGE_VERSION, SR_GIT_REV);
        return SR_EXIT_OK;
    }
    if (!strcmp(cmd, "run")) {         /* under mpirun: rank 0 runs and writes, the others serve it */
        int rank = job_join(&argc, &argv);
        int rc = rank == JOB_REFUSED ? SR_EXIT_USAGE : rank < 0 ? SR_EXIT_FAILURE : rank > 0 ? coll_serve()
               : cmd_run(argc, argv);
        if (rank >= 0) {
            coll_stop_serving();
            job_leave();
        }
        return rc;
    }
    if (!strcmp(cmd, "render"))
        return cmd_render(argc, argv);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc, argv);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc, argv);
    if (!strcmp(cmd, "tenant"))
        return tenants_serve(argc, argv);
    if (!strcmp(cmd, "list")) {
        if (argc > 2)
            return usage_error("list takes no arguments; got '%s'", argv[2]);
        return list_command();
    }
    return usage_error("unknown command '%s'", cmd);
}
