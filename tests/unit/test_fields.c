/* test_fields.c - the one field list (src/doc/fields.h): the CSV header
 * and rows are both made from it, column for column; every stored field
 * is a column of the store's `runs` table, in a new store and in one
 * migrated from schema version 1, whose columns stay as they were; the
 * typed view reads what the writers need. */
#include "t.h"

#include "core/buf.h"
#include "report/csv.h"
#include "doc/fields.h"
#include "doc/view.h"
#include "store/store.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

static json_t *fixture(const char *name)
{
    char path[4096];
    const char *root = getenv("MBENCH_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/report/%s",
             root ? root : ".", name);
    json_error_t je;
    json_t *d = json_load_file(path, 0, &je);
    if (!d)
        printf("#   cannot load %s: %s\n", path, je.text);
    return d;
}

/* Splits one CSV line (RFC 4180 quoting) into at most max fields. */
static size_t csv_split(const char *line, char fields[][512], size_t max)
{
    size_t n = 0, k = 0;
    int quoted = 0;
    for (const char *p = line;; p++) {
        if (n >= max)
            return n;
        if (quoted) {
            if (*p == '"' && p[1] == '"') {
                fields[n][k++] = '"';
                p++;
            } else if (*p == '"') {
                quoted = 0;
            } else if (*p) {
                fields[n][k++] = *p;
            }
            continue;
        }
        if (*p == '"') {
            quoted = 1;
        } else if (*p == ',' || *p == '\n' || !*p) {
            fields[n][k] = '\0';
            n++;
            k = 0;
            if (*p != ',')
                return n;
        } else if (k < 511) {
            fields[n][k++] = *p;
        }
    }
}

static void csv_header_is_the_list_of_csv_fields_in_order(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__fields_csv_header(&b);
    static char cells[128][512];
    size_t n = csv_split(b.data, cells, 128), nf, k = 0;
    const mb__field *f = mb__fields(&nf);
    for (size_t i = 0; i < nf; i++) {
        if (!(f[i].where & MB_FO_CSV))
            continue;
        EXPECT(k < n);
        if (k < n)
            EXPECT_STR(cells[k], f[i].name);
        k++;
    }
    EXPECT_EQ_INT(n, k);
    /* docs/FORMATS.md lists these 34 columns; a change here is a format
     * change that the docs must follow. */
    EXPECT_STR(b.data,
               "framework,model,variant,device,device_type,batch_size,"
               "input_shape,dtype,latency_p50_ms,latency_p95_ms,"
               "latency_p99_ms,latency_mean_ms,latency_std_ms,latency_min_ms,"
               "latency_max_ms,latency_ci_lo_ms,latency_ci_hi_ms,iterations,"
               "throughput_ips,throughput_sps,memory_mb,compilation_time_ms,"
               "first_inference_ms,timestamp,git_commit,model_sha256,status,"
               "top1,top1_delta,top1_delta_ci_lo,top1_delta_ci_hi,verdict,"
               "verdict_failures,headline\n");
    mb__buf_free(&b);
}

static void every_csv_cell_is_its_field_rendered_from_the_view(void)
{
    json_t *d = fixture("compare.json");
    if (!d)
        return;
    mb__buf out = MB_BUF_INIT;
    mb__report_csv(d, 1, &out);
    static char head[128][512], row[128][512];
    const char *nl = strchr(out.data, '\n');
    size_t nh = csv_split(out.data, head, 128);
    size_t nr = csv_split(nl + 1, row, 128);
    EXPECT_EQ_INT(nr, nh);
    mb__rrun r;
    mb__rrun_fill(&r, d, 0, json_array_get(json_object_get(d, "runs"), 0));
    for (size_t c = 0; c < nh && c < nr; c++) {
        const mb__field *f = mb__field_find(head[c]);
        EXPECT(f != NULL);
        if (!f)
            continue;
        char tmp[256];
        mb__fval v;
        mb__buf cell = MB_BUF_INIT;
        mb__field_get(f, &r, &v, tmp, sizeof tmp);
        mb__field_csv(f, &v, &cell);
        /* the cell the writer wrote, parsed back, is the field's */
        static char one[1][512];
        csv_split(cell.data ? cell.data : "", one, 1);
        if (strcmp(one[0], row[c]) != 0)
            T_FAIL_("column %s: row has '%s', the field gives '%s'", head[c],
                    row[c], one[0]);
        mb__buf_free(&cell);
    }
    /* and the numbers are the document's, in the CSV's units */
    double median = json_number_value(json_object_get(
        json_object_get(json_array_get(json_object_get(d, "runs"), 0),
                        "latency"),
        "median"));
    const mb__field *p50 = mb__field_find("latency_p50_ms");
    size_t c50 = 0;
    while (c50 < nh && strcmp(head[c50], "latency_p50_ms"))
        c50++;
    EXPECT(p50 && strcmp(p50->unit, "ns") == 0);
    EXPECT_NEAR(atof(row[c50]), median / 1e6, 1e-6);
    mb__buf_free(&out);
    json_decref(d);
}

static void a_field_marked_csv_is_a_column_and_unmarked_is_not(void)
{
    /* p90 is stored but is no CSV column; p95 is both. */
    mb__buf b = MB_BUF_INIT;
    mb__fields_csv_header(&b);
    EXPECT(strstr(b.data, "latency_p90_ms") == NULL);
    EXPECT(strstr(b.data, "latency_p95_ms") != NULL);
    const mb__field *p90 = mb__field_find("latency_p90_ms");
    EXPECT(p90 && (p90->where & MB_FO_STORE) && !(p90->where & MB_FO_CSV));
    mb__buf_free(&b);
}

/* The columns of table runs in the SQLite file at path, comma-joined. */
static void runs_columns(const char *path, mb__buf *out)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return;
    if (sqlite3_prepare_v2(db, "PRAGMA table_info(runs)", -1, &st, NULL) ==
        SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            mb__buf_printf(out, "%s,", sqlite3_column_text(st, 1));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

static const char runs_v2[] =
    "id,document_id,run_index,created_utc,git_commit,git_branch,git_dirty,"
    "status,error,model_name,model_path,model_sha256,model_file_bytes,"
    "variant,backend,device,batch_size,config,iterations,stop_rule,"
    "latency_count,p50_ns,p90_ns,p95_ns,p99_ns,mean_ns,std_ns,min_ns,max_ns,"
    "ci_lo_ns,ci_hi_ns,throughput_ips,throughput_sps,memory_peak_bytes,"
    "memory_peak_method,git_commit_date,";

static void every_stored_field_is_a_column_of_a_new_store(void)
{
    char path[] = "/tmp/mbench-test-fields-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    close(fd);
    unlink(path);
    mb__store *s = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__store_open(path, &s, &err), MB_OK);
    json_t *d = fixture("compare.json");
    if (s && d)
        EXPECT_EQ_INT(mb__store_put(s, d, NULL, &err), MB_OK);
    json_t *hist = NULL;
    if (s)
        EXPECT_EQ_INT(mb__store_history(s, NULL, &hist, &err), MB_OK);
    mb__store_close(s);
    mb__buf cols = MB_BUF_INIT;
    runs_columns(path, &cols);
    /* the layout existing databases have, unchanged */
    EXPECT_STR(cols.data ? cols.data : "", runs_v2);
    size_t nf;
    const mb__field *f = mb__fields(&nf);
    for (size_t i = 0; i < nf; i++) {
        if (!(f[i].where & MB_FO_STORE))
            continue;
        char want[80];
        snprintf(want, sizeof want, ",%s,", f[i].column);
        if (!strstr(cols.data ? cols.data : "", want))
            T_FAIL_("field %s: no column %s in runs", f[i].name, f[i].column);
    }
    /* the history row of the first run carries every history key with
     * the document's figures */
    const json_t *row = json_array_get(hist, 0);
    EXPECT_EQ_INT(json_array_size(hist),
                  json_array_size(json_object_get(d, "runs")));
    for (size_t i = 0; i < nf; i++)
        if ((f[i].where & MB_FO_HISTORY) && !json_object_get(row, f[i].key))
            T_FAIL_("history row has no key %s", f[i].key);
    double median = json_number_value(json_object_get(
        json_object_get(json_array_get(json_object_get(d, "runs"), 0),
                        "latency"),
        "median"));
    EXPECT_NEAR(json_number_value(json_object_get(row, "p50")), median, 1e-3);
    EXPECT(json_is_integer(json_object_get(row, "batch_size")));
    mb__buf_free(&cols);
    json_decref(hist);
    json_decref(d);
    unlink(path);
}

static void the_view_reads_the_figures_of_a_run(void)
{
    json_t *d = fixture("run_batches.json");
    if (!d)
        return;
    const json_t *run = json_array_get(json_object_get(d, "runs"), 0);
    mb__rrun r;
    mb__rrun_fill(&r, d, 0, run);
    const json_t *lat = json_object_get(run, "latency");
    EXPECT_NEAR(r.median, json_number_value(json_object_get(lat, "median")), 0);
    EXPECT_NEAR(r.p99, json_number_value(json_object_get(lat, "p99")), 0);
    EXPECT_NEAR(r.iterations,
                (double)json_integer_value(json_object_get(run, "iterations")),
                0);
    EXPECT_EQ_INT(r.batch,
                  json_integer_value(json_object_get(run, "batch_size")));
    EXPECT(r.created_utc &&
           strcmp(r.created_utc,
                  json_string_value(json_object_get(d, "created_utc"))) == 0);
    json_decref(d);
}

int main(void)
{
    RUN(csv_header_is_the_list_of_csv_fields_in_order);
    RUN(every_csv_cell_is_its_field_rendered_from_the_view);
    RUN(a_field_marked_csv_is_a_column_and_unmarked_is_not);
    RUN(every_stored_field_is_a_column_of_a_new_store);
    RUN(the_view_reads_the_figures_of_a_run);
    return T_DONE();
}
