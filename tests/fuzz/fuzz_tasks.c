/* fuzz_tasks.c - libFuzzer harness for the suite task reader
 * (mb__tasks_parse) and the command expansion of every row.  When the
 * input holds a NUL byte, what precedes it is the --command template and
 * what follows is the CSV table.  Built by `make fuzz`. */
#include "exec/tasks.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t len = size;
    char *tmpl = NULL;
    const char *nul = size ? memchr(data, '\0', size) : NULL;
    if (nul) {
        size_t n = (size_t)(nul - text);
        tmpl = malloc(n + 1);
        if (!tmpl)
            return 0;
        memcpy(tmpl, text, n + 1);
        text = nul + 1;
        len = size - n - 1;
    }
    mb__tasks t;
    mb_err err;
    if (mb__tasks_parse(text, len, "fuzz.csv", tmpl, &t, &err) == MB_OK) {
        for (size_t r = 0; r < t.csv.nrows && r < 64; r++) {
            char *cmd = NULL; /* as cmd_suite.c: command tasks only */
            if (t.kind == MB_TASK_COMMAND &&
                mb__tasks_command(&t, r, r % 2 ? "/w" : NULL, &cmd, &err) ==
                    MB_OK)
                free(cmd);
            json_decref(mb__tasks_row_json(&t, r));
            (void)mb__tasks_get(&t, r, "branch");
        }
        mb__tasks_free(&t);
    }
    free(tmpl);
    return 0;
}
