/* test_csvread.c - the RFC 4180 reader behind `mbench suite` task files:
 * quoting, embedded separators and newlines, CRLF, BOM, and errors that
 * name the line. */
#include "t.h"

#include "exec/csvread.h"

#include <string.h>

static mb_status parse(const char *text, mb__csv *c, mb_err *e)
{
    memset(e, 0, sizeof *e);
    return mb__csv_parse(text, strlen(text), "tasks.csv", c, e);
}

static void plain_fields_are_split_by_commas(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b,c\n1,2,3\n4,5,6\n", &c, &e), MB_OK);
    EXPECT_EQ_INT(c.ncols, 3);
    EXPECT_EQ_INT(c.nrows, 2);
    EXPECT_STR(c.header[2], "c");
    EXPECT_STR(mb__csv_cell(&c, 1, 0), "4");
    EXPECT_EQ_INT(mb__csv_col(&c, "b"), 1);
    EXPECT_EQ_INT(mb__csv_col(&c, "nope"), -1);
    mb__csv_free(&c);
}

static void quoted_fields_keep_commas_and_doubled_quotes(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("name,overrides\n"
                        "x,\"a=1,b=2\"\n"
                        "y,\"say \"\"hi\"\"\"\n",
                        &c, &e),
                  MB_OK);
    EXPECT_EQ_INT(c.nrows, 2);
    EXPECT_STR(mb__csv_cell(&c, 0, 1), "a=1,b=2");
    EXPECT_STR(mb__csv_cell(&c, 1, 1), "say \"hi\"");
    mb__csv_free(&c);
}

static void quoted_fields_keep_newlines_and_later_rows_keep_their_line(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b\n"
                        "1,\"two\nlines\"\n"
                        "3,4\n",
                        &c, &e),
                  MB_OK);
    EXPECT_EQ_INT(c.nrows, 2);
    EXPECT_STR(mb__csv_cell(&c, 0, 1), "two\nlines");
    EXPECT_EQ_INT(c.line[0], 2);
    EXPECT_EQ_INT(c.line[1], 4);
    mb__csv_free(&c);
}

static void crlf_line_ends_are_not_part_of_the_fields(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b\r\n1,2\r\n\"3\",4\r\n", &c, &e), MB_OK);
    EXPECT_EQ_INT(c.nrows, 2);
    EXPECT_STR(c.header[1], "b");
    EXPECT_STR(mb__csv_cell(&c, 0, 1), "2");
    EXPECT_STR(mb__csv_cell(&c, 1, 0), "3");
    EXPECT_STR(mb__csv_cell(&c, 1, 1), "4");
    mb__csv_free(&c);
}

static void a_utf8_bom_is_skipped(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("\xEF\xBB\xBF"
                        "branch,x\nmain,1\n",
                        &c, &e),
                  MB_OK);
    EXPECT_STR(c.header[0], "branch");
    EXPECT_EQ_INT(mb__csv_col(&c, "branch"), 0);
    mb__csv_free(&c);
}

static void blank_lines_and_a_missing_last_newline_are_fine(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("\na,b\n\n1,2\n\r\n3,\n\n5,6", &c, &e), MB_OK);
    EXPECT_EQ_INT(c.nrows, 3);
    EXPECT_STR(mb__csv_cell(&c, 1, 1), "");
    EXPECT_STR(mb__csv_cell(&c, 2, 1), "6");
    EXPECT_EQ_INT(c.line[0], 4);
    EXPECT_EQ_INT(c.line[2], 8);
    mb__csv_free(&c);
}

static void header_names_are_trimmed(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse(" branch ,\texperiment\n1,2\n", &c, &e), MB_OK);
    EXPECT_STR(c.header[0], "branch");
    EXPECT_STR(c.header[1], "experiment");
    mb__csv_free(&c);
}

static void an_unbalanced_quote_names_the_line_that_opened_it(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b\n1,2\n3,\"open\n4,5\n6,7\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "tasks.csv");
    EXPECT_CONTAINS(e.msg, "unterminated quoted field");
    EXPECT_CONTAINS(e.msg, "opened on line 3");
    EXPECT_EQ_INT(c.nrows, 0);
    EXPECT(c.cells == NULL && c.header == NULL);
}

static void a_quote_inside_an_unquoted_field_is_an_error(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b\n1,2\n3,x\"y\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 3: quote inside unquoted field 2");
}

static void text_after_a_closing_quote_is_an_error(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b\n\"x\"y,2\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 2: text after a closing quote in field 1");
}

static void a_row_with_too_few_or_too_many_fields_names_its_line(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b,c\n1,2,3\n4,5\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 3: 2 fields, but the header has 3 columns");
    EXPECT_CONTAINS(e.msg, "a column is missing");
    EXPECT_EQ_INT(parse("a,b\n1,2,3\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 2: 3 fields");
    EXPECT_CONTAINS(e.msg, "quote fields that contain commas");
}

static void a_duplicate_or_empty_column_name_is_an_error(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("a,b,a\n1,2,3\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 1: column 'a' appears twice");
    EXPECT_EQ_INT(parse("a,,c\n1,2,3\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "line 1: column 2 has no name");
}

static void an_empty_file_asks_for_a_header(void)
{
    mb__csv c;
    mb_err e;
    EXPECT_EQ_INT(parse("\xEF\xBB\xBF\n\n", &c, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "tasks.csv is empty");
}

int main(void)
{
    RUN(plain_fields_are_split_by_commas);
    RUN(quoted_fields_keep_commas_and_doubled_quotes);
    RUN(quoted_fields_keep_newlines_and_later_rows_keep_their_line);
    RUN(crlf_line_ends_are_not_part_of_the_fields);
    RUN(a_utf8_bom_is_skipped);
    RUN(blank_lines_and_a_missing_last_newline_are_fine);
    RUN(header_names_are_trimmed);
    RUN(an_unbalanced_quote_names_the_line_that_opened_it);
    RUN(a_quote_inside_an_unquoted_field_is_an_error);
    RUN(text_after_a_closing_quote_is_an_error);
    RUN(a_row_with_too_few_or_too_many_fields_names_its_line);
    RUN(a_duplicate_or_empty_column_name_is_an_error);
    RUN(an_empty_file_asks_for_a_header);
    return T_DONE();
}
