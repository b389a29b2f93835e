/* diffprint.c - the console report of `mbench diff` (diffprint.h). */
#include "report/diffprint.h"

#include "report/valprint.h"

void mb__diff_console(const mb__diff_result *res, size_t n_gates, int quiet,
                      mb__buf *out)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(res->doc, "outputs"), i, m) if (!quiet)
        mb__metrics_text(m, out);
    if (n_gates > 0 && !quiet) {
        mb__buf_puts(out, "gates:\n");
        mb__gates_text(json_object_get(res->doc, "gates"), out);
    }
    mb__buf_printf(out, "%s: %zu tensor%s compared%s\n",
                   n_gates == 0  ? "DONE"
                   : res->passed ? "PASS"
                                 : "FAIL",
                   res->n_tensors, res->n_tensors == 1 ? "" : "s",
                   n_gates == 0 ? ", no gates" : "");
}
