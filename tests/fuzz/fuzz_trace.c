/* fuzz_trace.c - libFuzzer harness for ONNX Runtime profile traces
 * (mb__trace_parse, mb__trace_profile, src/profile/trace.c), what
 * `mbench profile` does with the trace: the op-type and node profile,
 * the derived figures against a fixed machine record
 * (mb__profile_finish), the console view, folded stacks and the
 * Markdown/HTML tables (the views for every 4th profile: they cost more
 * than the analysis).  Built by `make fuzz`. */
#include "core/buf.h"
#include "profile/profile.h"
#include "profile/trace.h"
#include "report/profprint.h"
#include "report/proftable.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned g_n;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb__trace *t = NULL;
    mb_err err;
    if (mb__trace_parse((const char *)data, size, "trace", &t, &err) != MB_OK)
        return 0;
    size_t runs = mb__trace_runs(t);
    json_t *prof = NULL;
    if (mb__trace_profile(t, runs > 1 ? 1 : 0, &prof, &err) == MB_OK) {
        json_t *machine = json_pack(
            "{s:{s:f,s:f,s:i},s:{s:f,s:f}}", "sgemm", "one_core_gflops", 50.0,
            "all_cores_gflops", 90.0, "threads", 2, "triad", "one_core_gbps",
            20.0, "all_cores_gbps", 40.0);
        mb__profile_ctx ctx = {1e6, 1, 0, machine, NULL};
        mb__profile_finish(prof, &ctx);
        /* the views cost more than the analysis: every 4th profile */
        if (++g_n % 4 != 0) {
            json_decref(machine);
            json_decref(prof);
            mb__trace_free(t);
            return 0;
        }
        mb__buf b = MB_BUF_INIT;
        mb__profile_text(prof, "fuzz", 0, &b);
        mb__profile_folded(prof, "g", &b);
        for (int f = 0; f < 2; f++) {
            mb__profile_table(&b, (mb__pformat)f, MB_PT_OP_TYPES,
                              json_object_get(prof, "op_types"), 0);
            mb__profile_table(&b, (mb__pformat)f, MB_PT_NODES,
                              json_object_get(prof, "nodes"), 20);
            mb__profile_work_table(&b, (mb__pformat)f, prof);
        }
        json_t *cmp = mb__profile_compare(prof, "a", prof, "b");
        mb__profile_compare_text(cmp, &b);
        json_decref(cmp);
        mb__buf_free(&b);
        json_decref(machine);
        json_decref(prof);
    }
    mb__trace_free(t);
    return 0;
}
