/* tasks.h - the task table of `mbench suite`: a CSV file whose columns say
 * what kind of rows it holds.
 *  - model tasks: a `model` column (with optional backend, batch_size,
 *    options = "key=value;key=value" backend options);
 *  - command tasks: everything else; the command comes from a template
 *    (--command) or a `command` column, with {column} placeholders (and
 *    {workdir}, {index}) replaced by the row's values.  Training
 *    (branch,experiment,trainer,max_epochs,batch_size,overrides) and
 *    inference (branch,experiment,checkpoint_path,data_path,trainer,
 *    batch_size,overrides) tables must have all of their columns.
 * A value is inserted as one word (single-quoted when it holds spaces or
 * shell characters); the `overrides` column is a comma-separated list and
 * becomes one word per item (nothing when empty).
 * An optional `branch` column runs a task in that branch's worktree. */
#ifndef MB_EXEC_TASKS_H
#define MB_EXEC_TASKS_H

#include "exec/csvread.h"
#include "mbench.h"

#include <jansson.h>

typedef enum mb__task_kind { MB_TASK_COMMAND = 0, MB_TASK_MODEL } mb__task_kind;

typedef struct mb__tasks {
    mb__csv csv;
    mb__task_kind kind;
    const char *format; /* "training", "inference", "command", "model" */
    char *template_;    /* --command, or NULL (then the `command` column) */
    int col_branch, col_experiment, col_command;
    char *path;
    const char *root; /* {root}: the repository root (borrowed; set by the
                       * caller, NULL means ".") */
} mb__tasks;

/* Loads and checks the table at path (the template may be NULL). */
mb_status mb__tasks_load(const char *path, const char *command_template,
                         mb__tasks *t, mb_err *err);
/* The same from the len bytes at text (`path` names them in messages). */
mb_status mb__tasks_parse(const char *text, size_t len, const char *path,
                          const char *command_template, mb__tasks *t,
                          mb_err *err);
void mb__tasks_free(mb__tasks *t);

/* The command of row i with placeholders replaced (workdir may be NULL:
 * then {workdir} is "."; {root} is t->root, also inside a cell's value);
 * caller frees.  MB_EINVAL names an unknown
 * placeholder. */
mb_status mb__tasks_command(const mb__tasks *t, size_t row, const char *workdir,
                            char **out, mb_err *err);
/* {"column": "value", ...} of row i (new reference). */
json_t *mb__tasks_row_json(const mb__tasks *t, size_t row);
/* Cell of column `name` in row i, or NULL when there is no such column. */
const char *mb__tasks_get(const mb__tasks *t, size_t row, const char *name);

#endif
