/* reqopt.c - the --require option (reqopt.h). */
#include "reqopt.h"

#include "cli.h"
#include "core/alloc.h"
#include "report/reqcon.h"

#include <stdlib.h>
#include <string.h>

int mb_cli_reqs_add(mb__cli_reqs *q, const char *arg)
{
    mb_err err = {0};
    mb__require r;
    if (mb__require_parse(arg, &r, &err) != MB_OK)
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    mb__require *nr = mb__realloc_array(q->r, q->n + 1, sizeof *q->r);
    if (!nr) {
        mb__require_free(&r);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    }
    q->r = nr;
    q->r[q->n++] = r;
    return 0;
}

int mb_cli_reqs_judge(const mb__cli_reqs *q, json_t *doc, json_t *record,
                      FILE *f)
{
    if (!q || !q->n)
        return 0;
    json_t *arr = NULL;
    size_t unmet = 0;
    mb_err err = {0};
    if (mb__require_judge(doc, q->r, q->n, &arr, &unmet, &err) != MB_OK)
        return mb_cli_error(err.code == MB_ENOMEM ? MB_EXIT_RUNTIME
                                                  : MB_EXIT_USAGE,
                            "%s", err.msg);
    mb__buf b = MB_BUF_INIT;
    mb__report_require_console(arr, unmet, &b);
    fwrite(b.data ? b.data : "", 1, b.len, f);
    mb__buf_free(&b);
    if (record && record != doc)
        json_object_set(record, "requirements", arr);
    json_object_set_new(doc, "requirements", arr);
    if (unmet)
        fprintf(f, "%zu requirement(s) not met (exit %d)\n", unmet,
                MB_EXIT_REQUIRE);
    return unmet ? MB_EXIT_REQUIRE : 0;
}

int mb_cli_reqs_exit(int rc, int req_rc)
{
    return rc ? rc : req_rc;
}

void mb_cli_reqs_free(mb__cli_reqs *q)
{
    for (size_t i = 0; q && i < q->n; i++)
        mb__require_free(&q->r[i]);
    if (q) {
        free(q->r);
        q->r = NULL;
        q->n = 0;
    }
}
