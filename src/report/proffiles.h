/* proffiles.h - a single profile's own files: the raw ONNX Runtime
 * trace, the folded stacks and the icicle SVG.  The profile engine
 * (src/profile/engine.c) returns the result; this writer renders and
 * writes it, so profile/ sits below report/. */
#ifndef MB_REPORT_PROFFILES_H
#define MB_REPORT_PROFFILES_H

#include "mbench.h"
#include "profile/engine.h"

/* Writes each file atomically (any may be NULL): r->trace (keep_trace)
 * to trace, the folded stacks of r->doc's profile to folded and its
 * icicle SVG to flame.  Every file is tried; the first failure is
 * returned (a comparison has none of these: MB_OK). */
mb_status mb__report_profile_files(const mb__profile_result *r,
                                   const char *trace, const char *folded,
                                   const char *flame, mb_err *err);

#endif
