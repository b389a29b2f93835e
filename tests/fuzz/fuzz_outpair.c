/* fuzz_outpair.c - libFuzzer harness for the output pairing of validate,
 * compare and diff (src/accuracy/outpair.c): the input is lines; "a NAME"
 * and "b NAME" add an output to the baseline or the candidate ("A NAME" /
 * "B NAME": one that stores no name), "m BASE=CAND" a --map (through its
 * parser, mb__outmap_parse), "l" makes the maps lenient.  Invariants: a
 * pairing that succeeds pairs every baseline output with a distinct
 * candidate output and both sides have as many; a failure leaves nothing
 * to free; the document form is built.  Built by `make fuzz`. */
#include "accuracy/outpair.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OUT = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mb__outname a[MAX_OUT], b[MAX_OUT];
    mb__outmap m[MB__MAX_OUTMAPS];
    size_t na = 0, nb = 0, nm = 0;
    int lenient = 0;
    mb_err err;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char k = line[0];
        const char *arg = line[0] && line[1] ? line + 2 : "";
        if ((k == 'a' || k == 'A') && na < MAX_OUT)
            a[na++] = (mb__outname){arg, NULL, k == 'A'};
        else if ((k == 'b' || k == 'B') && nb < MAX_OUT)
            b[nb++] = (mb__outname){arg, NULL, k == 'B'};
        else if (k == 'm' && nm < MB__MAX_OUTMAPS &&
                 mb__outmap_parse(arg, &m[nm], &err) == MB_OK)
            nm++;
        else if (k == 'l')
            lenient = 1;
    }
    mb__pair_req rq = {
        a, b, na, nb, m, nm, "the baseline", "the candidate", lenient};
    mb__outpairs p;
    if (mb__outputs_pair(&rq, &p, &err) == MB_OK) {
        char seen[MAX_OUT] = {0};
        if (p.n != na || na != nb)
            abort();
        for (size_t i = 0; i < p.n; i++) {
            if (p.cand[i] >= nb || seen[p.cand[i]])
                abort();
            seen[p.cand[i]] = 1;
        }
        json_decref(mb__outpairs_json(&rq, &p));
        mb__outpairs_free(&p);
    }
    free(text);
    return 0;
}
