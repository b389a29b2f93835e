/* params.h - turning `mbench exec`'s command line into commands: the argv
 * after `--` as one command string, `--param NAME=a,b` scans (every
 * combination, `{NAME}` replaced in commands and names), and the checks
 * that a scan is used and every command splits into words. */
#ifndef MB_EXEC_PARAMS_H
#define MB_EXEC_PARAMS_H

#include "exec/exec.h"
#include "mbench.h"

#include <stddef.h>

typedef struct mb__exec_param {
    char *name;
    char **values;
    size_t n;
} mb__exec_param;

typedef struct mb__exec_params {
    mb__exec_param *p;
    size_t n;
} mb__exec_params;

/* Adds "NAME=v1,v2,..."; MB_EINVAL (message names the flag) when malformed. */
mb_status mb__exec_params_add(mb__exec_params *ps, const char *arg,
                              mb_err *err);
void mb__exec_params_free(mb__exec_params *ps);

/* The argv as one command string that mb__exec_split gives back word for
 * word (single-quoted where needed; as-is with shell).  Caller frees. */
char *mb__exec_join_argv(int argc, char **argv, int shell);

/* Expands ntmpl command templates (with nnames <= ntmpl display names)
 * over every combination of ps into *out (n = ntmpl x combinations;
 * free with mb__exec_cmds_free).  MB_EINVAL when a parameter is used by
 * no template, there are more names than commands, or (without shell) a
 * command does not split into words. */
mb_status mb__exec_expand(char *const *tmpl, size_t ntmpl, char *const *names,
                          size_t nnames, const mb__exec_params *ps, int shell,
                          mb__exec_cmd **out, size_t *n, mb_err *err);
void mb__exec_cmds_free(mb__exec_cmd *c, size_t n);

/* The commands of `mbench exec`: the -c templates tmpl[0..ntmpl) (tmpl
 * has room for one more), followed by the command argv[0..argc) when
 * argc > 0 (joined by mb__exec_join_argv), expanded as by
 * mb__exec_expand.  MB_EINVAL when there is no command at all. */
mb_status mb__exec_commands(char **tmpl, size_t ntmpl, int argc, char **argv,
                            char *const *names, size_t nnames,
                            const mb__exec_params *ps, int shell,
                            mb__exec_cmd **out, size_t *n, mb_err *err);

#endif
