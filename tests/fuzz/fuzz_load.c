/* fuzz_load.c - libFuzzer harness for the option parsers of `mbench load`:
 * mb__load_req_set (every load flag's value: rate and thread lists, CPU
 * lists, --slo through mb__load_parse_slo, counts, fractions, durations,
 * the named modes), mb__load_req_check over what was set, and the null
 * backend's options (sleep, stall, stall_every, stall_prob, ...), which
 * the load checks are made with.  The input is lines KEY=VALUE, as
 * mb_runner_load takes them; a key that is not a load option is handed to
 * the null backend's open().  Built by `make fuzz`. */
#include "load/load.h"

#include "mbench_backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const mb_backend *mb__backend_null(void);

#define MAX_ITEMS 64

/* Hands the keys the load engine did not take to the null backend. */
static void open_null(const mb_kv *opts, size_t n)
{
    const mb_backend *b = mb__backend_null();
    void *state = NULL, *session = NULL;
    mb_err err;
    if (b->load(NULL, &state, &err) != MB_OK)
        return;
    if (b->open(state, "x", opts, n, &session, &err) == MB_OK)
        b->close(session);
    b->unload(state);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mb__load_req r;
    mb__load_req_defaults(&r);
    mb_kv rest[MAX_ITEMS];
    size_t n_rest = 0;
    mb_err err;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq || eq == line)
            continue;
        *eq = '\0';
        if (mb__load_req_set(&r, line, eq + 1, &err) == 1 && n_rest < MAX_ITEMS)
            rest[n_rest++] = (mb_kv){line, eq + 1};
    }
    (void)mb__load_req_check(&r, &err);
    open_null(rest, n_rest);
    free(text);
    return 0;
}
