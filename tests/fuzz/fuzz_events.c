/* fuzz_events.c - libFuzzer harness for the phase-events line parser
 * (events.c).  The first input byte sets the size of the chunks the rest
 * is fed in (pipe reads split lines anywhere); timestamps advance per
 * chunk.  Built by `make fuzz`. */
#include "exec/events.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = (size_t)data[0] + 1;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    mb_events ev;
    mb__events_init(&ev);
    int64_t t = 1000;
    while (n) {
        size_t k = n < chunk ? n : chunk;
        mb__events_feed(&ev, p, k, t);
        p += k;
        n -= k;
        t += 1000 + (int64_t)k;
    }
    mb__events_finish(&ev, t);
    for (size_t i = 0; i < ev.n_phases; i++)
        if (mb__events_phase(&ev, ev.phases[i].name) == NULL)
            abort(); /* every recorded phase must be found by name */
    for (size_t i = 0; i < ev.n_loops; i++)
        if (mb__events_loop(&ev, ev.loops[i].name) != &ev.loops[i] ||
            ev.loops[i].n == 0)
            abort(); /* every loop is found and has its iterations */
    mb__events_free(&ev);
    return 0;
}
