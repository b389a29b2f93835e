/* fuzz_machine.c - libFuzzer harness for the machine cache
 * ($XDG_CACHE_HOME/mbench/machine.json): the check mb__machine_load
 * applies (mb__machine_accept, src/profile/machine.c) and what a cached
 * record feeds: `mbench machine`'s console view, the narrow-BLAS note and
 * the profile's peak shares (mb__profile_finish).  A cache is only
 * accepted for this machine's key, so when the first byte is odd the
 * harness sets "schema" and "key" to the values that pass and fuzzes the
 * rest of the record.  Built by `make fuzz`. */
#include "core/buf.h"
#include "core/sysinfo.h"
#include "profile/machine.h"
#include "profile/profile.h"
#include "report/machrep.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *g_key;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!g_key) {
        json_t *si = mb__sysinfo_json();
        g_key = json_pack("{s:O?, s:O?}", "cpu_model",
                          json_object_get(si, "cpu_model"), "logical_cores",
                          json_object_get(si, "logical_cores"));
        json_decref(si);
    }
    json_t *m = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (!m)
        return 0;
    if ((data[0] & 1) && json_is_object(m)) {
        json_object_set_new(m, "schema", json_string("mbench.machine/1"));
        json_object_set(m, "key", g_key);
    }
    if (mb__machine_accept(m, g_key)) {
        mb__buf b = MB_BUF_INIT;
        mb__machine_console(&b, m, 1);
        char why[256];
        (void)mb__machine_narrow_blas(m, why, sizeof why);
        mb__buf_free(&b);
        json_t *prof = json_pack(
            "{s:{s:f},s:{s:f,s:f},s:[{s:s,s:f,s:f}]}", "runs", "used", 10.0,
            "work", "flops_per_run", 2e9, "macs_per_run", 1e9, "op_types",
            "op_type", "MatMul", "total_ns", 5e6, "flops_per_run", 2e9);
        mb__profile_ctx ctx = {1e6, 1, 0, m, NULL};
        mb__profile_finish(prof, &ctx);
        json_decref(prof);
    }
    json_decref(m);
    return 0;
}
