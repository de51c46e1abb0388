/* csv.c: writes a checked results document as CSV text: gathers the columns from every record,
 * then one row per record with the cells it has. Writing the file is the caller's
 * (fs_write_atomic); which records exist is the experiments'. */
#include "results/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/json.h"

struct csv {
    char **cols;
    int ncols, cap;
};

static int col_index(struct csv *c, const char *name, int add)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->cols[i], name) == 0)
            return i;
    if (!add)
        return -1;
    if (c->ncols == c->cap)
        c->cols = xrealloc(c->cols, (size_t)(c->cap = c->cap ? 2 * c->cap : 32) * sizeof *c->cols);
    c->cols[c->ncols] = xstrdup(name);
    return c->ncols++;
}

/* Calls fn for every scalar field of rec, nested objects flattened "a.b"; arrays skipped. */
static void scalars(const cJSON *o, const char *prefix, void (*fn)(void *, const char *, const cJSON *), void *ud)
{
    for (const cJSON *f = o->child; f; f = f->next) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", f->string ? f->string : "");
        if (cJSON_IsObject(f))
            scalars(f, name, fn, ud);
        else if (!cJSON_IsArray(f))
            fn(ud, name, f);
    }
}

static void add_col(void *ud, const char *name, const cJSON *v)
{
    (void)v;
    col_index(ud, name, 1);
}

struct row {
    struct csv *csv;
    char **cells;
};

static void set_cell(void *ud, const char *name, const cJSON *v)
{
    struct row *r = ud;
    int i = col_index(r->csv, name, 0);
    char buf[64];
    if (i < 0)
        return;
    if (cJSON_IsNumber(v))
        snprintf(buf, sizeof buf, "%.12g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, sizeof buf, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsString(v))
        buf[0] = '\0';
    else
        return;
    free(r->cells[i]);
    r->cells[i] = xstrdup(cJSON_IsString(v) ? v->valuestring : buf);
}

static void put_field(char **out, size_t *len, size_t *cap, const char *s, int last)
{
    size_t need = 2 * strlen(s) + 4;
    if (*len + need >= *cap)
        *out = xrealloc(*out, *cap = 2 * (*cap + need));
    int quote = strpbrk(s, ",\"\n\r") != NULL;
    char *p = *out + *len;
    if (quote)
        *p++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *p++ = '"';
        *p++ = *s;
    }
    if (quote)
        *p++ = '"';
    *p++ = last ? '\n' : ',';
    *len = (size_t)(p - *out);
}

char *csv_results(const cJSON *results)
{
    struct csv c = { 0 };
    const cJSON *exps = cJSON_GetObjectItemCaseSensitive(results, "experiments");
    col_index(&c, "experiment", 1);
    col_index(&c, "device", 1);
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next)
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next)
            scalars(r, "", add_col, &c);
    size_t len = 0, cap = 4096;
    char *out = xmalloc(cap);
    for (int i = 0; i < c.ncols; i++)
        put_field(&out, &len, &cap, c.cols[i], i == c.ncols - 1);
    for (const cJSON *e = exps ? exps->child : NULL; e; e = e->next) {
        for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "results")->child; r; r = r->next) {
            struct row row = { &c, xcalloc((size_t)c.ncols, sizeof(char *)) };
            row.cells[0] = xstrdup(json_str(e, "name", ""));
            row.cells[1] = xstrdup(json_str(e, "device", ""));
            scalars(r, "", set_cell, &row);
            for (int i = 0; i < c.ncols; i++) {
                put_field(&out, &len, &cap, row.cells[i] ? row.cells[i] : "", i == c.ncols - 1);
                free(row.cells[i]);
            }
            free(row.cells);
        }
    }
    out[len] = '\0';
    for (int i = 0; i < c.ncols; i++)
        free(c.cols[i]);
    free(c.cols);
    return out;
}
