/* fuzz_csv.c - libFuzzer harness for mb__csv_parse (RFC 4180 tables);
 * every cell and header name of a parsed table is read back.  Built by
 * `make fuzz`. */
#include "exec/csvread.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb__csv c;
    mb_err err;
    if (mb__csv_parse((const char *)data, size, "fuzz.csv", &c, &err) != MB_OK)
        return 0;
    size_t sum = 0;
    for (size_t j = 0; j < c.ncols; j++)
        if (mb__csv_col(&c, c.header[j]) != (int)j)
            abort(); /* every header name is found, at its own column
                      * (a table naming one twice is refused) */
    for (size_t i = 0; i < c.nrows; i++) {
        sum += c.line[i];
        for (size_t j = 0; j < c.ncols; j++)
            sum += strlen(mb__csv_cell(&c, i, j));
    }
    (void)sum;
    mb__csv_free(&c);
    return 0;
}
