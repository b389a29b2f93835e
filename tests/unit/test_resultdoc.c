/* test_resultdoc.c - report/resultdoc.c and the files beside result
 * documents: loading, checking and merging result documents, tensor files
 * (data/tensorfile.c) with their hash, input specs and the info writer
 * (report/tensorrep.c, report/inforep.c). */
#include "t.h"

#include "core/buf.h"
#include "data/npz.h"
#include "data/tensorfile.h"
#include "report/inforep.h"
#include "report/resultdoc.h"
#include "report/tensorrep.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/mbench-resultdoc.XXXXXX";

static const char *tmp(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void result_docs_are_checked_and_merged(void)
{
    mb_err err = {0};
    json_t *d = NULL;
    write_text(tmp("bad.json"),
               "{\"schema\": \"mbench.result/9\", \"runs\": []}");
    EXPECT_EQ_INT(mb__result_load(tmp("bad.json"), &d, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "is not supported");
    write_text(tmp("trunc.json"), "{\"schema\": ");
    EXPECT_EQ_INT(mb__result_load(tmp("trunc.json"), &d, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "not valid JSON");
    EXPECT_EQ_INT(mb__result_load(tmp("none.json"), &d, &err), MB_EIO);
    write_text(tmp("a.json"),
               "{\"schema\": \"mbench.result/1\", \"runs\": [{\"v\": 1}], "
               "\"warnings\": [\"w1\"], \"command_line\": \"mbench run "
               "--db postgresql://u:secret@h/db\"}");
    write_text(tmp("b.json"),
               "{\"schema\": \"mbench.result/1\", \"runs\": [{\"v\": 2}], "
               "\"warnings\": [\"w1\", \"w2\"], \"comparison\": {}}");
    json_t *docs[2] = {NULL, NULL};
    EXPECT_EQ_INT(mb__result_load(tmp("a.json"), &docs[0], &err), MB_OK);
    EXPECT_EQ_INT(mb__result_load(tmp("b.json"), &docs[1], &err), MB_OK);
    EXPECT(!strstr(json_string_value(json_object_get(docs[0], "command_line")),
                   "secret"));
    const char *names[2] = {"a.json", "b.json"};
    json_t *notes = json_array();
    json_t *m = mb__result_merge(docs, names, 2, notes);
    EXPECT_EQ_INT(json_array_size(json_object_get(m, "runs")), 2);
    EXPECT_EQ_INT(json_array_size(json_object_get(m, "warnings")), 2);
    EXPECT_EQ_INT(json_array_size(json_object_get(m, "merged_from")), 2);
    EXPECT_EQ_INT(json_array_size(notes), 1);
    EXPECT_CONTAINS(json_string_value(json_array_get(notes, 0)), "b.json");
    json_decref(m);
    json_decref(notes);
    json_decref(docs[0]);
    json_decref(docs[1]);
}

static void tensor_files_round_trip_with_their_hash(void)
{
    mb_tensor t[2];
    memset(t, 0, sizeof t);
    int64_t dims[2] = {2, 3};
    mb_err err = {0};
    EXPECT_EQ_INT(mb_tensor_alloc(&t[0], MB_DTYPE_FLOAT32, 2, dims, "x", &err),
                  MB_OK);
    EXPECT_EQ_INT(mb_tensor_alloc(&t[1], MB_DTYPE_INT64, 1, dims, "ids", &err),
                  MB_OK);
    for (int i = 0; i < 6; i++)
        ((float *)t[0].data)[i] = (float)i / 4;
    ((int64_t *)t[1].data)[1] = -7;
    EXPECT_EQ_INT(mb__tensor_file_write(tmp("two.npy"), t, 2, &err), MB_EINVAL);
    EXPECT_EQ_INT(mb__tensor_file_write(tmp("two.npz"), t, 2, &err), MB_OK);
    EXPECT_EQ_INT(mb__tensor_file_write(tmp("one.npy"), t, 1, &err), MB_OK);
    mb_tensor *r;
    size_t n;
    EXPECT_EQ_INT(mb__tensor_file_read(tmp("two.npz"), &r, &n, &err), MB_OK);
    EXPECT_EQ_INT(n, 2);
    char h1[65], h2[65];
    mb__tensor_sha256_le(&t[0], h1);
    mb__tensor_sha256_le(&r[0], h2);
    EXPECT_STR(h1, h2);
    mb__buf b = MB_BUF_INIT;
    mb__tensor_describe(&b, &r[1], "?", 1, 2);
    EXPECT_CONTAINS(b.data, "ids dtype=int64 shape=[2]");
    EXPECT_CONTAINS(b.data, "values: 0 -7\n");
    mb__buf_free(&b);
    mb__npz_free(r, n);
    /* an .npy has no name of its own: the file's base name */
    EXPECT_EQ_INT(mb__tensor_file_read(tmp("one.npy"), &r, &n, &err), MB_OK);
    EXPECT_EQ_INT(n, 1);
    EXPECT_STR(r[0].name, "one");
    mb__tensor_describe(&b, &r[0], "?", 1, -1);
    EXPECT_CONTAINS(b.data, "values: 0 0.25 0.5 0.75 1 1.25\n");
    mb__buf_free(&b);
    mb__npz_free(r, n);
    mb_tensor_clear(&t[0]);
    mb_tensor_clear(&t[1]);
}

static void input_specs_parse(void)
{
    char s1[] = "x:float32:N,1,8,8", s2[] = "y:int64:?", s3[] = "x:nope:1",
         s4[] = ":float32:1";
    mb_io_desc d;
    EXPECT(mb__io_desc_parse(s1, &d));
    EXPECT_STR(d.name, "x");
    EXPECT_EQ_INT(d.rank, 4);
    EXPECT_EQ_INT(d.dims[0], -1);
    EXPECT_STR(d.dim_names[0], "N");
    EXPECT_EQ_INT(d.dims[3], 8);
    EXPECT(mb__io_desc_parse(s2, &d));
    EXPECT_EQ_INT(d.rank, -1);
    EXPECT(!mb__io_desc_parse(s3, &d));
    EXPECT(!mb__io_desc_parse(s4, &d));
}

static void info_writer_describes_the_document(void)
{
    json_t *o = json_pack(
        "{s:s,s:I,s:I,s:i,s:s,s:[{s:s,s:i}],s:s,s:i,s:{s:i},s:[{s:s,s:s,s:[s,"
        "i]}],s:[],s:I,s:I,s:i,s:{s:{s:I,s:I}}}",
        "path", "m.onnx", "file_bytes", (json_int_t)263287, "total_bytes",
        (json_int_t)263287, "ir_version", 8, "producer_name", "torch", "opsets",
        "domain", "", "version", 17, "graph_name", "g", "nodes", 1, "op_types",
        "Gemm", 1, "inputs", "name", "x", "dtype", "float32", "shape", "N", 256,
        "outputs", "params", (json_int_t)65792, "param_bytes",
        (json_int_t)263168, "initializers", 2, "params_by_dtype", "float32",
        "count", (json_int_t)65792, "bytes", (json_int_t)263168);
    EXPECT(o != NULL);
    mb__buf b = MB_BUF_INIT;
    mb__info_console(&b, o);
    EXPECT_CONTAINS(b.data, "file      257 KiB (263,287 bytes)\n");
    EXPECT_CONTAINS(b.data, "opsets    ai.onnx 17\n");
    EXPECT_CONTAINS(b.data, "  x     float32   [N, 256]\n");
    EXPECT_CONTAINS(b.data, "parameters 65,792 (65.8K) in 2 initializers");
    mb__buf_free(&b);
    mb__info_json(&b, o);
    EXPECT(strncmp(b.data, "{\n  \"schema\": \"mbench.info/1\"", 29) == 0);
    mb__buf_free(&b);
    json_decref(o);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(result_docs_are_checked_and_merged);
    RUN(tensor_files_round_trip_with_their_hash);
    RUN(input_specs_parse);
    RUN(info_writer_describes_the_document);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        return 1;
    return T_DONE();
}
