/* planopt.h - the plan's option language, declared once: every option a
 * measurement takes (threads, batch, dim, target-ci, ...) with its type,
 * range, metavariable, help line and where its value goes.  The public
 * API (mb_runner_set, src/api/api.c) and the CLI's shared run options
 * (cli/runopts.c) both set options through mb__planopt_set, so they accept
 * and reject the same values with the same message; the CLI also builds
 * its --help, man page and completion from this table.
 *
 * Options of kind MB__PO_BACKEND are forwarded to the backend as
 * key=value (plan->opts); the backend validates them itself when it opens
 * a session, so the order of options never matters.  Which backends take
 * a forwarded key is declared by each backend (mb_backend.options). */
#ifndef MB_RUNNER_PLANOPT_H
#define MB_RUNNER_PLANOPT_H

#include "plan/plan.h"

/* How a value is read (drives parsing, --help and shell completion). */
typedef enum mb__po_type {
    MB__PO_SWITCH,   /* no value on the command line; "1"/"0" via the API */
    MB__PO_INT,      /* integer in [lo, hi] */
    MB__PO_DOUBLE,   /* number in [lo, hi] */
    MB__PO_FRACTION, /* "0.01" or "1%", in (lo, hi] */
    MB__PO_DURATION, /* "2s", "500ms", "1m" */
    MB__PO_STRING,   /* any non-empty string */
    MB__PO_FILE,     /* a path to read */
    MB__PO_OUTFILE,  /* a path to write (the CLI checks it at parse time) */
    MB__PO_ENUM,     /* one of `choices` ("a|b|c") */
    MB__PO_INTLIST,  /* comma-separated integers in [lo, hi] */
    MB__PO_KV        /* NAME=VALUE (the value's form is in `expect`) */
} mb__po_type;

/* Flags of an option. */
enum {
    MB__PO_REPEAT = 1u << 0,  /* may be given more than once */
    MB__PO_BACKEND = 1u << 1, /* forwarded to the backend (plan->opts) */
};

typedef struct mb__planopt {
    const char *name; /* "threads": the long option, without dashes */
    mb__po_type type;
    const char *metavar; /* "N", "NAME=VALUE"; NULL for a switch */
    const char *group;   /* "Runtime options", "Inputs", "Measurement" */
    const char *help;    /* one sentence, with the default */
    const char *expect;  /* the accepted form, for error messages */
    const char *choices; /* MB__PO_ENUM: "sequential|parallel" */
    double lo, hi;       /* ranges of numbers (and list items) */
    unsigned flags;
    int id; /* which plan field the setter writes (planopt.c) */
} mb__planopt;

/* The table, in help order; *n is its length.  Static, never freed. */
const mb__planopt *mb__planopt_table(size_t *n);
/* The entry called name (without dashes), or NULL. */
const mb__planopt *mb__planopt_find(const char *name);
/* Parses value for option o into p.  shown is how the option is named in
 * the message ("--threads" on the command line, "threads" in the API).
 * A switch takes NULL, "", "1" or "true" (on), "0" or "false" (off).
 * Returns MB_OK, or MB_EINVAL with "invalid value 'V' for SHOWN: expected
 * ..." in err (MB_ENOMEM when memory runs out). */
mb_status mb__planopt_set(mb__plan *p, const mb__planopt *o, const char *shown,
                          const char *value, mb_err *err);
/* Cross-option checks after every option was set (min <= max):
 * MB_OK or MB_EINVAL naming both options, each preceded by dashes ("--"
 * on the command line, "" or NULL in the API). */
mb_status mb__planopt_finish(const mb__plan *p, const char *dashes,
                             mb_err *err);

#endif
