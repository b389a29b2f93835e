/* reqcon.c - requirement verdicts on the console (report/reqcon.h). */
#include "report/reqcon.h"

/* The word of a verdict: passed true, false, or null (not judged). */
static const char *word(const json_t *passed)
{
    return json_is_true(passed)    ? "PASS"
           : json_is_false(passed) ? "FAIL"
                                   : "n/a ";
}

void mb__report_require_console(const json_t *verdicts, size_t unmet,
                                mb__buf *b)
{
    size_t n = json_array_size(verdicts), i, j;
    const json_t *rq, *res;
    mb__buf_printf(b, "\nRequirements (%zu of %zu met):\n", n - unmet, n);
    json_array_foreach(verdicts, i, rq)
    {
        const char *text =
            json_string_value(json_object_get(rq, "requirement"));
        const char *note = json_string_value(json_object_get(rq, "note"));
        if (note)
            mb__buf_printf(b, "  FAIL %s: %s\n", text, note);
        json_array_foreach(json_object_get(rq, "results"), j, res)
        {
            mb__buf_printf(b, "  %s %s [%s]: %s\n",
                           word(json_object_get(res, "passed")), text,
                           json_string_value(json_object_get(res, "variant")),
                           json_string_value(json_object_get(res, "verdict")));
        }
    }
}
