/* slurmrep.c - the console lines of a Slurm job (slurmrep.h). */
#include "report/slurmrep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last three non-empty lines of the file at path, each "    | ". */
static void log_tail(mb__buf *b, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char lines[3][512] = {"", "", ""}, buf[512];
    while (fgets(buf, sizeof buf, f)) {
        if (buf[0] == '\n')
            continue;
        memmove(lines[0], lines[1], sizeof lines[0] * 2);
        snprintf(lines[2], sizeof lines[2], "%s", buf);
    }
    fclose(f);
    for (int i = 0; i < 3; i++)
        if (lines[i][0])
            mb__buf_printf(b, "    | %s%s", lines[i],
                           strchr(lines[i], '\n') ? "" : "\n");
}

static const char *shown_state(mb__slurm_state s)
{
    return s == MB_SLURM_FAILED ? "FAILED" : mb__slurm_state_name(s);
}

void mb__slurm_task_console(mb__buf *b, const mb__slurm_job *j, size_t k,
                            size_t finished, int quiet)
{
    const mb__slurm_task *t = &j->tasks[k];
    const char *node = t->node[0] ? t->node : "?";
    char req[64] = "";
    if (t->restarts)
        snprintf(req, sizeof req, ", requeued %d time(s) by Slurm",
                 t->restarts);
    if (t->state == MB_SLURM_DONE) {
        if (!quiet)
            mb__buf_printf(b,
                           "[%zu/%zu] task %zu done on %s (job %s%s, "
                           "%.1f s)\n",
                           finished, j->n, k, node, t->job, req,
                           t->end_s - t->start_s);
        return;
    }
    char *log = mb__slurm_log_path(j, k);
    mb__buf_printf(b, "[%zu/%zu] task %zu %s on %s (job %s%s): %s\n  log: %s\n",
                   finished, j->n, k, shown_state(t->state), node, t->job, req,
                   t->reason, log ? log : "?");
    if (log)
        log_tail(b, log);
    free(log);
}

void mb__slurm_progress_console(mb__buf *b, const mb__slurm_counts *c)
{
    mb__buf_printf(
        b,
        "[slurm] %zu done, %zu failed, %zu running, %zu "
        "pending",
        c->done, c->failed + c->timeout + c->cancelled + c->node_fail + c->lost,
        c->running, c->pending);
    if (c->requeued)
        mb__buf_printf(b, ", %zu requeued", c->requeued);
    mb__buf_putc(b, ' ');
}

void mb__slurm_counts_console(mb__buf *b, const mb__slurm_counts *c, size_t n)
{
    const struct {
        const char *name;
        size_t n;
    } parts[] = {{"done", c->done},
                 {"failed", c->failed},
                 {"timeout", c->timeout},
                 {"cancelled", c->cancelled},
                 {"node_fail", c->node_fail},
                 {"lost", c->lost},
                 {"running", c->running},
                 {"pending", c->pending},
                 {"unsubmitted", c->unsubmitted}};
    mb__buf_printf(b, "%zu task(s):", n);
    const char *sep = " ";
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].n && i > 1)
            continue;
        mb__buf_printf(b, "%s%zu %s", sep, parts[i].n, parts[i].name);
        sep = ", ";
    }
    if (c->requeued)
        mb__buf_printf(b, " (%zu requeued by Slurm)", c->requeued);
    mb__buf_putc(b, '\n');
}

void mb__slurm_status_console(mb__buf *b, const mb__slurm_job *j)
{
    mb__buf_printf(b, "%-6s %-11s %-8s %-14s %-16s %s\n", "task", "state",
                   "restarts", "job", "node", "reason");
    for (size_t k = 0; k < j->n; k++) {
        const mb__slurm_task *t = &j->tasks[k];
        mb__buf_printf(b, "%-6zu %-11s %-8d %-14s %-16s %s\n", k,
                       mb__slurm_state_name(t->state), t->restarts,
                       t->job[0] ? t->job : "-", t->node[0] ? t->node : "-",
                       t->reason);
    }
    mb__slurm_counts c;
    mb__slurm_count(j, &c);
    mb__slurm_counts_console(b, &c, j->n);
}

size_t mb__slurm_unfinished_console(mb__buf *b, const mb__slurm_job *j)
{
    size_t bad = mb__slurm_unfinished(j);
    if (bad)
        mb__buf_printf(b,
                       "%zu of %zu task(s) did not finish (failed, timed "
                       "out, cancelled, node failure or lost; above); "
                       "resubmit only those: 'mbench slurm resume %s' (or "
                       "--slurm --resume --slurm-dir %s)\n",
                       bad, j->n, j->dir, j->dir);
    return bad;
}
