/* opt.h - declarative command-line options: each command declares a table
 * (long name, short name, type, range, metavariable, help) and calls one
 * parse function, which checks every value against its type and range,
 * prints --help from the table, and reports errors in one wording:
 *
 *   unknown option '--speed'; did you mean '--seed'? see 'mbench run --help'
 *   --json needs a value; see 'mbench run --help'
 *   invalid value 'x' for --threads: expected an integer from 0 ... to 4096
 *
 * -h/--help and -q/--quiet are part of every command.  A command may also
 * take the shared run options (runopts.h, from the library's plan option
 * table) and the shared output options (outputs.h).  The same tables
 * produce the man page and the bash/zsh completion: `mbench
 * __dump-options json` prints them and the build tool tools/optdoc.c writes
 * both (docs/DESIGN.md "Command-line options"). */
#ifndef MB_CLI_OPT_H
#define MB_CLI_OPT_H

#include "plan/plan.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mb__outset;

/* How a value is read; the order matches mb__po_type (plan/planopt.h). */
typedef enum mb__opt_type {
    MB_OPT_SWITCH,   /* no value */
    MB_OPT_INT,      /* integer in [lo, hi] -> v.i */
    MB_OPT_DOUBLE,   /* number in [lo, hi] -> v.d */
    MB_OPT_FRACTION, /* "0.01" or "1%" in (lo, hi] -> v.d */
    MB_OPT_DURATION, /* "2s", "500ms" -> v.i (ns) */
    MB_OPT_STRING,   /* any non-empty string -> v.str */
    MB_OPT_FILE,     /* a path to read (completed as a file) */
    MB_OPT_OUTFILE,  /* a path to write: checked at once (exit 3); with
                        MB_OPT_STDOUT, "-" is stdout (v.str is then the
                        path that writes there) */
    MB_OPT_ENUM,     /* one of choices "a|b|c" */
    MB_OPT_INTLIST,  /* "1,2,4" in [lo, hi] (v.str; parse it yourself) */
    MB_OPT_KV,       /* NAME=VALUE */
    MB_OPT_DIR       /* a directory */
} mb__opt_type;

enum {
    MB_OPT_REPEAT = 1u << 0, /* may be given more than once */
    MB_OPT_HIDDEN = 1u << 1, /* not in --help, man page or completion */
    MB_OPT_STDOUT = 1u << 2, /* MB_OPT_OUTFILE: "-" means stdout, the
                                console report then goes to stderr */
    MB_OPT_DASH = 1u << 3    /* MB_OPT_OUTFILE: "-" is passed on as is
                                (the command writes stdout itself) */
};

typedef struct mb__opt {
    const char *name; /* long name without dashes: "json" */
    char short_name;  /* 'o', or 0 */
    mb__opt_type type;
    const char *metavar; /* "FILE"; NULL for a switch */
    const char *help;    /* one sentence */
    const char *expect;  /* the accepted form in errors; NULL: from type */
    const char *choices; /* MB_OPT_ENUM: "a|b|c" */
    double lo, hi;       /* MB_OPT_INT/DOUBLE/FRACTION/INTLIST */
    unsigned flags;
    int id; /* handed back to the command */
} mb__opt;

/* A parsed value, valid during the callback. */
typedef struct mb__optval {
    const char *str; /* the text (NULL for a switch); see MB_OPT_OUTFILE */
    int64_t i;
    double d;
    const char *text; /* the text as given (differs from str for "-") */
} mb__optval;

/* Option sets a command takes besides its own. */
enum {
    MB_OPTSET_RUN = 1u << 0,   /* runopts.h: threads, batch, warmup, ... */
    MB_OPTSET_OUTPUT = 1u << 1 /* outputs.h: --json --csv --md --html --db */
};

/* A command's declaration: what `--help`, the man page and completion
 * show, and what mb_opt_parse accepts. */
typedef struct mb__cmd {
    const char *name;        /* "run" */
    const char *args;        /* "MODEL" (shown in the usage line) */
    const char *summary;     /* one line, for `mbench --help` */
    const char *description; /* a paragraph, for --help and the man page */
    const mb__opt *opts;     /* the command's own options */
    size_t n_opts;
    unsigned sets;      /* MB_OPTSET_* */
    int min_args;       /* positional arguments: at least */
    int max_args;       /* and at most (-1: any number) */
    const char *footer; /* printed after the options ("Exit codes: ...") */
} mb__cmd;

/* What mb_opt_parse fills, and where it puts the shared options. */
typedef struct mb__opt_ctx {
    mb__plan *plan;         /* MB_OPTSET_RUN: set here (required) */
    struct mb__outset *out; /* MB_OPTSET_OUTPUT: recorded here */
    /* The command's own options: 0 to go on, or an exit code after
     * printing.  May be NULL when the command has none. */
    int (*on_opt)(void *user, const mb__opt *o, const mb__optval *v);
    void *user;
    /* results */
    int quiet;   /* -q / --quiet */
    char **args; /* positional arguments, in order (inside argv) */
    int n_args;
} mb__opt_ctx;

/* mb_opt_parse's "help was printed" result: the command returns 0. */
#define MB_OPT_HELP (-1)

/* Parses argv[1..argc-1] (argv[0] is the command name): options anywhere,
 * "--" ends them, "--name=value", "--name value", "-o value", "-ovalue",
 * grouped short switches ("-qh") and unambiguous prefixes of long names.
 * Positional arguments are moved to the front of argv+1 (ctx->args) and
 * their count checked against cmd.  Returns 0, MB_OPT_HELP after printing
 * the help on stdout, or an exit code after printing one error line. */
int mb_opt_parse(const mb__cmd *cmd, int argc, char **argv, mb__opt_ctx *ctx);

/* Which options mb_opt_rewrite keeps: fn says 1 to keep o. */
typedef struct mb__opt_keep {
    int (*fn)(void *user, const mb__opt *o);
    void *user;
} mb__opt_keep;

/* argv (argv[0] the command name; a command line mb_opt_parse accepted,
 * in the order given) read as mb_opt_parse reads it, with the options
 * keep refuses left out together with their values.  Positional words and
 * everything from "--" on are kept as they are; a group of short options
 * ("-qr3") becomes one word per option ("-q" "-r" "3").  Returns a new
 * NULL-terminated array of copies (mb_opt_argv_free), *n_out words, or
 * NULL when memory runs out. */
char **mb_opt_rewrite(const mb__cmd *cmd, int argc, char **argv,
                      const mb__opt_keep *keep, int *n_out);
void mb_opt_argv_free(char **v);

/* The help of cmd, generated from its tables. */
void mb_opt_help(const mb__cmd *cmd, FILE *f);

/* Every option of cmd (own, then shared sets, then -h/-q), one at a time:
 * *group is its section title.  Returns NULL past the last.  For the man
 * page and completion generators. */
const mb__opt *mb_opt_each(const mb__cmd *cmd, size_t i, const char **group);

/* The command called name among those that declared a table (the
 * Makefile collects the MBENCH_OPTIONS lines), or NULL. */
const mb__cmd *mb_opt_find_command(const char *name);

/* A command as main.c dispatches it (cli.h MBENCH_COMMAND). */
typedef struct mb__cmd_entry {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} mb__cmd_entry;
/* Writes what = "json" (every command's table: tools/optdoc.c turns it
 * into the man page and the completion scripts) or "list" ("COMMAND
 * --option" lines) for cmds to f.  Returns an exit code. */
int mb_opt_dump(const char *what, const mb__cmd_entry *cmds, size_t n, FILE *f);

/* Registers a command's table: one line at file scope beside
 * MBENCH_COMMAND, naming the mb__cmd variable (the Makefile collects the
 * lines into build/gen/options.inc). */
#define MBENCH_OPTIONS(name, var) extern const mb__cmd var;

#endif
