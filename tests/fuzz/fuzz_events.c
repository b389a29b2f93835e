/* fuzz_events.c - libFuzzer harness for the phase-events line parser
 * (events.c).  The first input byte sets the size of the chunks the rest
 * is read in (pipe reads split lines anywhere) and of the slices of the
 * backlog parsed between reads, as proc.c does; timestamps advance per
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
    mb__events ev;
    mb__events_init(&ev);
    int64_t t = 1000;
    while (n) {
        size_t k = n < chunk ? n : chunk;
        mb__events_push(&ev, p, k, t);
        mb__events_work(&ev, (size_t)(data[0] % 7) * 13 + 1);
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
    for (size_t i = 0; i < ev.n_counters; i++)
        if (mb__events_counter(&ev, ev.counters[i].name) != &ev.counters[i])
            abort();
    for (size_t i = 0; i < ev.n_metrics; i++)
        if (mb__events_metric(&ev, ev.metrics[i].name) != &ev.metrics[i])
            abort();
    if (ev.names != ev.n_phases + ev.n_counters + ev.n_metrics + ev.n_loops ||
        ev.names > MB_EVENTS_MAX_NAMES || ev.depth != 0)
        abort();
    mb__events_free(&ev);
    return 0;
}
