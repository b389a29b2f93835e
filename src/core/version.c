/* version.c - library version and the commit it was built from. */
#include "mbench.h"

#include "build_info.h"

const char *mb_version(void)
{
    return MB_VERSION_STRING;
}
int mb_version_number(void)
{
    return MB_VERSION_NUMBER;
}
const char *mb_build_commit(void)
{
    return MB_BUILD_COMMIT;
}
