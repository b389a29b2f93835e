/* test_events.c - the MBENCH_EVENTS_FD line protocol: phases (nested,
 * repeated, timed by arrival or by the program's t_ns), counters, metrics,
 * and malformed lines that are counted, never fatal. */
#include "t.h"

#include "exec/events.h"

#include <stdio.h>
#include <string.h>

#define MS 1000000LL

/* Feeds one line (a newline is added) received at t_ns. */
static void line(mb__events *ev, const char *s, int64_t t_ns)
{
    mb__events_feed(ev, s, strlen(s), t_ns);
    mb__events_feed(ev, "\n", 1, t_ns);
}

static void a_phase_lasts_from_its_start_line_to_its_end_line(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"init\"}", 10 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"init\"}", 35 * MS);
    mb__events_finish(&ev, 40 * MS);
    const mb__phase_rec *p = mb__events_phase(&ev, "init");
    EXPECT(p != NULL);
    if (p) {
        EXPECT_EQ_INT(p->total_ns, 25 * MS);
        EXPECT_EQ_INT(p->first_ns, 25 * MS);
        EXPECT_EQ_INT(p->count, 1);
        EXPECT_EQ_INT(p->unfinished, 0);
        EXPECT(p->parent == NULL);
    }
    EXPECT_EQ_INT(ev.malformed, 0);
    EXPECT_EQ_INT(ev.lines, 2);
    mb__events_free(&ev);
}

static void a_repeated_phase_is_summed_and_its_first_kept_apart(void)
{
    mb__events ev;
    mb__events_init(&ev);
    int64_t t = 0;
    for (int epoch = 0; epoch < 3; epoch++) {
        line(&ev, "{\"event\":\"start\",\"phase\":\"epoch\"}", t);
        t += (epoch == 0 ? 50 : 20) * MS;
        line(&ev, "{\"event\":\"end\",\"phase\":\"epoch\"}", t);
    }
    mb__events_finish(&ev, t);
    const mb__phase_rec *p = mb__events_phase(&ev, "epoch");
    EXPECT(p != NULL);
    if (p) {
        EXPECT_EQ_INT(p->count, 3);
        EXPECT_EQ_INT(p->first_ns, 50 * MS);
        EXPECT_EQ_INT(p->total_ns, 90 * MS);
    }
    EXPECT_EQ_INT(ev.n_phases, 1);
    mb__events_free(&ev);
}

static void nested_phases_record_their_parent(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"epoch\"}", 0);
    line(&ev, "{\"event\":\"start\",\"phase\":\"first_batch_load\"}", 1 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"first_batch_load\"}", 4 * MS);
    line(&ev, "{\"event\":\"start\",\"phase\":\"forward\"}", 4 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"forward\"}", 9 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"epoch\"}", 10 * MS);
    mb__events_finish(&ev, 10 * MS);
    EXPECT_EQ_INT(ev.n_phases, 3);
    if (ev.n_phases == 3) {
        EXPECT_STR(ev.phases[0].name, "epoch");
        EXPECT_STR(ev.phases[1].name, "first_batch_load");
        EXPECT_STR(ev.phases[1].parent, "epoch");
        EXPECT_STR(ev.phases[2].parent, "epoch");
        EXPECT_EQ_INT(ev.phases[2].total_ns, 5 * MS);
        EXPECT_EQ_INT(ev.phases[0].total_ns, 10 * MS);
    }
    EXPECT_EQ_INT(ev.malformed, 0);
    mb__events_free(&ev);
}

static void ending_an_outer_phase_leaves_inner_open_ones_unfinished(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"outer\"}", 0);
    line(&ev, "{\"event\":\"start\",\"phase\":\"inner\"}", 1 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"outer\"}", 3 * MS);
    line(&ev, "{\"event\":\"start\",\"phase\":\"tail\"}", 4 * MS);
    mb__events_finish(&ev, 5 * MS);
    const mb__phase_rec *outer = mb__events_phase(&ev, "outer");
    const mb__phase_rec *inner = mb__events_phase(&ev, "inner");
    const mb__phase_rec *tail = mb__events_phase(&ev, "tail");
    EXPECT(outer && inner && tail);
    if (outer && inner && tail) {
        EXPECT_EQ_INT(outer->count, 1);
        EXPECT_EQ_INT(outer->total_ns, 3 * MS);
        EXPECT_EQ_INT(inner->count, 0);
        EXPECT_EQ_INT(inner->unfinished, 1);
        EXPECT_EQ_INT(tail->unfinished, 1);
    }
    EXPECT_EQ_INT(ev.malformed, 0);
    mb__events_free(&ev);
}

static void the_programs_own_t_ns_times_a_phase_when_both_ends_have_it(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"fwd\",\"t_ns\":1000}", 5 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"fwd\",\"t_ns\":8000}", 9 * MS);
    line(&ev, "{\"event\":\"start\",\"phase\":\"mixed\",\"t_ns\":1000}",
         10 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"mixed\"}", 12 * MS);
    mb__events_finish(&ev, 12 * MS);
    const mb__phase_rec *p = mb__events_phase(&ev, "fwd");
    const mb__phase_rec *m = mb__events_phase(&ev, "mixed");
    EXPECT(p && m);
    if (p && m) {
        EXPECT_EQ_INT(p->total_ns, 7000);
        EXPECT_EQ_INT(m->total_ns, 2 * MS); /* arrival times */
    }
    mb__events_free(&ev);
}

static void counters_add_up_and_metrics_keep_their_last_value(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"counter\",\"name\":\"samples\",\"value\":128}", 0);
    line(&ev, "{\"event\":\"metric\",\"name\":\"loss\",\"value\":0.9}", 0);
    line(&ev, "{\"event\":\"counter\",\"name\":\"samples\",\"value\":64}", 0);
    line(&ev, "{\"event\":\"metric\",\"name\":\"loss\",\"value\":0.31}", 0);
    mb__events_finish(&ev, 0);
    EXPECT_EQ_INT(ev.n_counters, 1);
    EXPECT_EQ_INT(ev.n_metrics, 1);
    if (ev.n_counters == 1 && ev.n_metrics == 1) {
        EXPECT_STR(ev.counters[0].name, "samples");
        EXPECT_NEAR(ev.counters[0].value, 192, 0);
        EXPECT_EQ_INT(ev.counters[0].updates, 2);
        EXPECT_NEAR(ev.metrics[0].value, 0.31, 0);
    }
    mb__events_free(&ev);
}

static void lines_split_across_reads_and_crlf_ends_are_joined(void)
{
    mb__events ev;
    mb__events_init(&ev);
    const char *s = "{\"event\":\"start\",\"phase\":\"a\"}\r\n\n"
                    "{\"event\":\"end\",\"phase\":\"a\"}";
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += 7) /* seven bytes at a time */
        mb__events_feed(&ev, s + i, n - i < 7 ? n - i : 7, (int64_t)i * MS);
    /* The last line has no newline: finish parses it. */
    mb__events_finish(&ev, 100 * MS);
    const mb__phase_rec *p = mb__events_phase(&ev, "a");
    EXPECT(p != NULL);
    if (p)
        EXPECT_EQ_INT(p->count, 1);
    EXPECT_EQ_INT(ev.malformed, 0);
    mb__events_free(&ev);
}

static void malformed_lines_are_counted_with_the_first_reason(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"ok\"}", 0);
    line(&ev, "{bad json", 0);                               /* 2 */
    line(&ev, "[1,2]", 0);                                   /* 3 */
    line(&ev, "{\"phase\":\"x\"}", 0);                       /* 4 */
    line(&ev, "{\"event\":\"launch\"}", 0);                  /* 5 */
    line(&ev, "{\"event\":\"end\",\"phase\":\"never\"}", 0); /* 6 */
    line(&ev, "{\"event\":\"start\"}", 0);                   /* 7 */
    line(&ev, "{\"event\":\"counter\",\"name\":\"n\"}", 0);  /* 8 */
    line(&ev, "{\"event\":\"metric\",\"value\":1}", 0);      /* 9 */
    line(&ev, "{\"event\":\"counter\",\"name\":\"n\",\"value\":\"1\"}", 0);
    line(&ev, "{\"event\":\"end\",\"phase\":\"ok\"}", 2 * MS);
    mb__events_finish(&ev, 3 * MS);
    EXPECT_EQ_INT(ev.lines, 11);
    EXPECT_EQ_INT(ev.malformed, 9);
    EXPECT_CONTAINS(ev.first_malformed, "event line 2: not a JSON object");
    const mb__phase_rec *p = mb__events_phase(&ev, "ok");
    EXPECT(p != NULL);
    if (p)
        EXPECT_EQ_INT(p->total_ns, 2 * MS);
    EXPECT(mb__events_phase(&ev, "never") == NULL);
    EXPECT_EQ_INT(ev.n_counters, 0);
    mb__events_free(&ev);
}

static void each_kind_of_malformed_line_says_why(void)
{
    static const struct {
        const char *line, *why;
    } cases[] = {
        {"[1,2]", "not a JSON object (other JSON value)"},
        {"{\"phase\":\"x\"}", "no \"event\" string"},
        {"{\"event\":\"launch\"}", "unknown event \"launch\""},
        {"{\"event\":\"end\",\"phase\":\"x\"}",
         "end of phase 'x' that was not started"},
        {"{\"event\":\"start\",\"phase\":\"\"}",
         "\"start\" event without a \"phase\" string"},
        {"{\"event\":\"metric\",\"name\":\"m\"}",
         "needs a \"name\" string and a numeric \"value\""},
        {"{\"event\":\"start\",\"phase\":\"p\",\"t_ns\":1.5}",
         "\"t_ns\" is not an integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mb__events ev;
        mb__events_init(&ev);
        line(&ev, cases[i].line, 0);
        mb__events_finish(&ev, 0);
        EXPECT_EQ_INT(ev.malformed, 1);
        EXPECT_CONTAINS(ev.first_malformed, cases[i].why);
        mb__events_free(&ev);
    }
}

static void an_overlong_line_is_skipped_and_the_next_one_read(void)
{
    mb__events ev;
    mb__events_init(&ev);
    static char big[MB_EVENTS_MAX_LINE + 100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    line(&ev, big, 0);
    line(&ev, "{\"event\":\"counter\",\"name\":\"n\",\"value\":2}", 0);
    mb__events_finish(&ev, 0);
    EXPECT_EQ_INT(ev.lines, 2);
    EXPECT_EQ_INT(ev.malformed, 1);
    EXPECT_CONTAINS(ev.first_malformed, "event line 1: longer than");
    EXPECT_EQ_INT(ev.n_counters, 1);
    mb__events_free(&ev);
}

static void blank_lines_are_neither_events_nor_malformed(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "", 0);
    line(&ev, "   \r", 0);
    mb__events_finish(&ev, 0);
    EXPECT_EQ_INT(ev.malformed, 0);
    EXPECT_EQ_INT(ev.n_phases + ev.n_counters + ev.n_metrics, 0);
    mb__events_free(&ev);
}

static void iterations_of_a_loop_are_kept_in_order_with_their_items(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"iter\",\"name\":\"infer\",\"ns\":1200,\"items\":8}",
         MS);
    line(&ev, "{\"event\":\"iter\",\"name\":\"decode\",\"ns\":50}", MS);
    line(&ev, "{\"event\":\"iter\",\"name\":\"infer\",\"ns\":900}", MS);
    mb__events_finish(&ev, 2 * MS);
    const mb__loop_rec *l = mb__events_loop(&ev, "infer");
    EXPECT(l != NULL);
    if (l) {
        EXPECT_EQ_INT(l->n, 2);
        EXPECT_EQ_INT(l->ns[0], 1200);
        EXPECT_EQ_INT(l->items[0], 8);
        EXPECT_EQ_INT(l->ns[1], 900);
        EXPECT_EQ_INT(l->items[1], 1); /* items default to 1 */
    }
    EXPECT_EQ_INT(ev.n_loops, 2);
    EXPECT_EQ_INT(ev.iters, 3);
    EXPECT_EQ_INT(ev.malformed, 0);
    mb__events_free(&ev);
}

static void a_bad_iteration_is_malformed_and_not_kept(void)
{
    static const char *const bad[] = {
        "{\"event\":\"iter\",\"name\":\"x\",\"ns\":0}",
        "{\"event\":\"iter\",\"name\":\"x\",\"ns\":1.5}",
        "{\"event\":\"iter\",\"ns\":10}",
        "{\"event\":\"iter\",\"name\":\"x\",\"ns\":10,\"items\":-2}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mb__events ev;
        mb__events_init(&ev);
        line(&ev, bad[i], MS);
        mb__events_finish(&ev, MS);
        EXPECT_EQ_INT(ev.malformed, 1);
        EXPECT_EQ_INT(ev.n_loops, 0);
        EXPECT_CONTAINS(ev.first_malformed, "\"iter\" event");
        mb__events_free(&ev);
    }
}

/* Issue 37: past MB_EVENTS_MAX_NAMES distinct names the events are counted
 * dropped (their ends are not malformed), names already kept go on. */
static void names_past_the_cap_are_counted_dropped(void)
{
    mb__events ev;
    mb__events_init(&ev);
    char b[96];
    for (unsigned i = 0; i < MB_EVENTS_MAX_NAMES + 10; i++) {
        snprintf(b, sizeof b, "{\"event\":\"start\",\"phase\":\"p%u\"}", i);
        line(&ev, b, MS);
        snprintf(b, sizeof b, "{\"event\":\"end\",\"phase\":\"p%u\"}", i);
        line(&ev, b, 2 * MS);
    }
    line(&ev, "{\"event\":\"counter\",\"name\":\"new\",\"value\":1}", 3 * MS);
    line(&ev, "{\"event\":\"start\",\"phase\":\"p7\"}", 3 * MS);
    line(&ev, "{\"event\":\"end\",\"phase\":\"p7\"}", 4 * MS);
    mb__events_finish(&ev, 5 * MS);
    EXPECT_EQ_INT(ev.n_phases, MB_EVENTS_MAX_NAMES);
    EXPECT_EQ_INT(ev.dropped_events, 21);
    EXPECT_EQ_INT(ev.malformed, 0);
    EXPECT_EQ_INT(ev.n_counters, 0);
    const mb__phase_rec *p = mb__events_phase(&ev, "p7");
    EXPECT(p && p->count == 2);
    EXPECT(mb__events_phase(&ev, "p65535") != NULL);
    EXPECT(mb__events_phase(&ev, "p65536") == NULL);
    mb__events_free(&ev);
}

/* Lines the fast reader leaves to jansson (escapes, other keys, repeated
 * keys, odd numbers) mean what they always meant. */
static void unusual_lines_mean_what_jansson_says(void)
{
    mb__events ev;
    mb__events_init(&ev);
    line(&ev, "{\"event\":\"start\",\"phase\":\"a\\\"b\",\"extra\":[1]}", MS);
    line(&ev, " { \"phase\" : \"a\\u0022b\" , \"event\" : \"end\" } ", 3 * MS);
    line(&ev, "{\"event\":\"counter\",\"name\":\"c\",\"value\":2.5e1}", MS);
    line(&ev, "{\"event\":\"counter\",\"name\":\"c\",\"value\":-5}", MS);
    line(&ev, "{\"event\":\"metric\",\"name\":\"m\",\"value\":1e999}", MS);
    line(&ev, "{\"event\":\"counter\",\"name\":\"c\",\"value\":01}", MS);
    line(&ev,
         "{\"event\":\"counter\",\"event\":\"metric\",\"name\":\"c\",\"value\":"
         "1}",
         MS);
    line(&ev, "{\"event\":\"counter\",\"name\":\"c\",\"value\":\"1\"}", MS);
    mb__events_finish(&ev, 5 * MS);
    const mb__phase_rec *p = mb__events_phase(&ev, "a\"b");
    EXPECT(p && p->count == 1 && p->total_ns == 2 * MS);
    const mb__named_value *c = mb__events_counter(&ev, "c");
    EXPECT(c && c->value == 20.0 && c->updates == 2);
    EXPECT_EQ_INT(ev.malformed, 4);
    EXPECT(mb__events_metric(&ev, "m") == NULL);
    mb__events_free(&ev);
}

/* Bytes pushed to the backlog keep the time they arrived, however late
 * they are parsed; a start too deep is malformed. */
static void the_backlog_keeps_arrival_times_and_depth_is_capped(void)
{
    mb__events ev;
    mb__events_init(&ev);
    const char *a = "{\"event\":\"start\",\"phase\":\"x\"}\n{\"event\":\"en";
    const char *b = "d\",\"phase\":\"x\"}\n";
    EXPECT(mb__events_push(&ev, a, strlen(a), 10 * MS));
    EXPECT(mb__events_push(&ev, b, strlen(b), 40 * MS));
    EXPECT_EQ_INT(mb__events_pending(&ev), strlen(a) + strlen(b));
    mb__events_work(&ev, 5);
    mb__events_work(&ev, 1000);
    EXPECT_EQ_INT(mb__events_pending(&ev), 0);
    const mb__phase_rec *p = mb__events_phase(&ev, "x");
    EXPECT(p && p->total_ns == 30 * MS);
    for (unsigned i = 0; i <= MB_EVENTS_MAX_DEPTH; i++)
        line(&ev, "{\"event\":\"start\",\"phase\":\"deep\"}", MS);
    EXPECT_EQ_INT(ev.malformed, 1);
    EXPECT_CONTAINS(ev.first_malformed, "phases deep");
    line(&ev, "{\"event\":\"end\",\"phase\":\"deep\"}", 2 * MS);
    mb__events_finish(&ev, 3 * MS);
    p = mb__events_phase(&ev, "deep");
    EXPECT(p && p->count == 1 && p->unfinished == MB_EVENTS_MAX_DEPTH - 1);
    mb__events_free(&ev);
}

int main(void)
{
    RUN(a_phase_lasts_from_its_start_line_to_its_end_line);
    RUN(a_repeated_phase_is_summed_and_its_first_kept_apart);
    RUN(nested_phases_record_their_parent);
    RUN(ending_an_outer_phase_leaves_inner_open_ones_unfinished);
    RUN(the_programs_own_t_ns_times_a_phase_when_both_ends_have_it);
    RUN(counters_add_up_and_metrics_keep_their_last_value);
    RUN(lines_split_across_reads_and_crlf_ends_are_joined);
    RUN(malformed_lines_are_counted_with_the_first_reason);
    RUN(each_kind_of_malformed_line_says_why);
    RUN(an_overlong_line_is_skipped_and_the_next_one_read);
    RUN(blank_lines_are_neither_events_nor_malformed);
    RUN(iterations_of_a_loop_are_kept_in_order_with_their_items);
    RUN(a_bad_iteration_is_malformed_and_not_kept);
    RUN(names_past_the_cap_are_counted_dropped);
    RUN(unusual_lines_mean_what_jansson_says);
    RUN(the_backlog_keeps_arrival_times_and_depth_is_capped);
    return T_DONE();
}
