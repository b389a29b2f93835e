/* htmlpage.c - see htmlpage.h. */
#include "report/htmlpage.h"

#include "report/html_assets.h"
#include "report/rutil.h"

void mb__html_page_begin(mb__buf *out, bool with_script)
{
    mb__buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                      "charset=\"utf-8\">\n<meta name=\"viewport\" "
                      "content=\"width=device-width,initial-scale=1\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" "
                      "content=\"default-src 'none'; style-src "
                      "'unsafe-inline'");
    if (with_script)
        mb__buf_puts(out, "; script-src 'unsafe-inline'; img-src data:");
    mb__buf_puts(out, "\">\n<meta name=\"color-scheme\" "
                      "content=\"light dark\">\n<title>mbench ");
}

void mb__html_page_body(mb__buf *out, bool with_script, const char *expect,
                        const mb__buf *body)
{
    mb__buf_puts(out, "</title>\n");
    if (with_script)
        mb__buf_puts(out, "<script>window.__mbErr=[];window.addEventListener("
                          "'error',function(e){window.__mbErr.push(String(e."
                          "message))});</script>\n");
    mb__buf_puts(out, "<style>\n");
    for (size_t i = 0; mb_html_css[i]; i++)
        mb__buf_puts(out, mb_html_css[i]);
    mb__buf_puts(out, "</style></head>\n<body");
    if (expect) {
        mb__buf_puts(out, " data-expect=\"");
        mb__html_escape(out, expect);
        mb__buf_putc(out, '"');
    }
    mb__buf_puts(out, ">\n");
    if (body)
        mb__buf_append(out, body->data ? body->data : "", body->len);
}

void mb__html_page_data(mb__buf *out)
{
    mb__buf_puts(out,
                 "<script type=\"application/json\" id=\"mbench-data\">\n");
}

void mb__html_page_end(mb__buf *out)
{
    mb__buf_puts(out, "\n</script>\n<script>\n");
    for (size_t i = 0; mb_html_js[i]; i++)
        mb__buf_puts(out, mb_html_js[i]);
    mb__buf_puts(out, "</script>\n</body></html>\n");
}
