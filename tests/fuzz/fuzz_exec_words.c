/* fuzz_exec_words.c - libFuzzer harness for `mbench exec`'s command
 * words: the -c splitter (mb__exec_split: sh-like quotes and backslashes,
 * no expansion), its inverse (mb__exec_join_argv) and --param expansion
 * (mb__exec_params_add, mb__exec_expand, src/exec/params.c).  The input is
 * NUL-separated: a command template, then --param values.  Invariants: a
 * split command joined again splits into the same words; every expanded
 * command of a template without a shell splits.  Scans of 257 to 100,000
 * combinations are not expanded (slow, and no other code path).  Built
 * by `make fuzz`. */
#include "exec/exec.h"
#include "exec/params.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(char **argv)
{
    int n = 0;
    while (argv && argv[n])
        n++;
    return n;
}

static void round_trip(const char *cmd)
{
    char **a = NULL, **b = NULL;
    mb_err err;
    if (mb__exec_split(cmd, &a, &err) != MB_OK)
        return;
    int n = count(a);
    char *joined = mb__exec_join_argv(n, a, 0);
    if (joined && mb__exec_split(joined, &b, &err) == MB_OK) {
        if (count(b) != n)
            abort();
        for (int i = 0; i < n; i++)
            if (strcmp(a[i], b[i]) != 0)
                abort();
    } else if (joined) {
        abort(); /* what join wrote must split */
    }
    free(joined);
    mb__exec_argv_free(a);
    mb__exec_argv_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* pieces: text up to the first NUL is the template, the others
     * --param NAME=v1,v2 arguments (at most 4) */
    char *pieces[5];
    size_t np = 0;
    for (char *p = text; np < 5 && p <= text + size;) {
        pieces[np++] = p;
        p += strlen(p) + 1;
    }
    round_trip(pieces[0]);
    mb__exec_params ps = {NULL, 0};
    mb_err err;
    for (size_t i = 1; i < np; i++)
        (void)mb__exec_params_add(&ps, pieces[i], &err);
    /* expansions of up to 100,000 commands cost the whole campaign its
     * speed; their size check (mb__exec_expand refuses more) is reached
     * all the same */
    size_t combos = 1;
    for (size_t i = 0; i < ps.n && combos <= 100000; i++)
        combos *= ps.p[i].n ? ps.p[i].n : 1;
    for (int shell = 0; shell < 2 && (combos <= 256 || combos > 100000);
         shell++) {
        mb__exec_cmd *cmds = NULL;
        size_t n = 0;
        char *tmpl[1] = {pieces[0]};
        if (mb__exec_expand(tmpl, 1, NULL, 0, &ps, shell, &cmds, &n, &err) ==
            MB_OK) {
            for (size_t k = 0; k < n; k++) {
                char **w = NULL;
                if (!shell && mb__exec_split(cmds[k].command, &w, &err))
                    abort();
                mb__exec_argv_free(w);
            }
            mb__exec_cmds_free(cmds, n);
        }
    }
    mb__exec_params_free(&ps);
    free(text);
    return 0;
}
