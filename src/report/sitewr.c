/* sitewr.c - the pages of `mbench site` (sitewr.h). */
#include "report/sitewr.h"

#include "doc/docfmt.h"
#include "report/htmlpage.h"
#include "report/rutil.h"
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *sv(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static double nv(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void esc(mb__buf *b, const char *s)
{
    mb__html_escape(b, s ? s : "");
}

char *mb__site_fmt(const char *unit, double x, char *out, size_t len)
{
    char num[64];
    if (!isfinite(x))
        snprintf(out, len, "-");
    else if (strcmp(unit, "ns") == 0)
        mb__fmt_duration(x, out, len);
    else if (strcmp(unit, "B") == 0)
        mb__fmt_bytes(x, out, len);
    else if (strcmp(unit, "1/s") == 0)
        snprintf(out, len, "%s/s", mb__fmt_num(x, 4, num, sizeof num));
    else
        mb__fmt_num(x, 4, out, len);
    return out;
}

/* "+12.3%" ("-" for a missing change). */
static char *pct(double change, char *out, size_t len)
{
    if (!isfinite(change))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%+.1f%%", change * 100);
    return out;
}

/* The CSS class of a change: worse, better or none, by the series'
 * direction. */
static const char *change_class(const json_t *s, double change)
{
    const char *better = sv(s, "better");
    if (!isfinite(change) || fabs(change) < 0.005)
        return "flat";
    if (strcmp(better, "lower") == 0)
        return change > 0 ? "worse" : "better";
    if (strcmp(better, "higher") == 0)
        return change < 0 ? "worse" : "better";
    return "flat";
}

/* ---- shared pieces ------------------------------------------------------ */

static const char site_css[] =
    "<style>nav.site{display:flex;gap:18px;margin:0 0 14px;font-size:14px}"
    "nav.site a{color:var(--accent);text-decoration:none}"
    "nav.site a.here{font-weight:650;color:var(--fg)}"
    ".controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;"
    "margin:10px 0}.controls input,.controls select{font:inherit;padding:4px "
    "8px;"
    "border:1px solid var(--line);border-radius:6px;background:var(--bg);"
    "color:var(--fg)}.worse{color:var(--bad);font-weight:600}"
    ".better{color:var(--good);font-weight:600}.flat{color:var(--muted)}"
    "svg.spark{width:110px;height:26px;vertical-align:middle}"
    "svg.spark polyline{fill:none;stroke:var(--accent);stroke-width:1.5}"
    "tr.cp td{background:var(--warn-bg)}td.mono,span.mono{font-family:"
    "ui-monospace,monospace;font-size:12px}"
    ".chart-wrap svg{width:100%;height:auto}"
    ".cp-line{stroke:var(--bad);stroke-dasharray:5 4;stroke-width:1.5}"
    ".ci-bar{stroke:var(--muted);stroke-width:1}"
    ".gate-fail{fill:var(--bad)}</style>\n";

static const char site_js[] =
    "<script>\n(function(){'use strict';\n"
    "var errs=window.__mbErr||[],root=document.documentElement,problems=[];\n"
    "function q(s){return document.querySelector(s)}\n"
    "(document.body.getAttribute('data-expect')||'').split(' ').filter(Boolean)"
    ".forEach(function(id){if(!document.getElementById(id))problems.push("
    "'missing element '+id)});\n"
    "var data=null,de=document.getElementById('site-data');\n"
    "if(de){try{data=JSON.parse(de.textContent)}catch(e){problems.push("
    "'embedded JSON does not parse')}}\n"
    "var tb=q('#series-table tbody');\n"
    "if(tb){var rows=[].slice.call(tb.rows);\n"
    "var apply=function(){var t=q('#filter').value.toLowerCase(),m=q("
    "'#machine-filter').value,k=q('#kind-filter').value,n=0;\n"
    "rows.forEach(function(r){var s=(!t||r.getAttribute('data-text')."
    "indexOf(t)>=0)&&(!m||r.getAttribute('data-machine')===m)&&(!k||r."
    "getAttribute('data-kind')===k);r.hidden=!s;if(s)n++});\n"
    "q('#shown').textContent=n+' of '+rows.length+' series shown'};\n"
    "['#filter','#machine-filter','#kind-filter'].forEach(function(s){q(s)."
    "addEventListener('input',apply);q(s).addEventListener('change',apply)});"
    "\n"
    "[].forEach.call(document.querySelectorAll('#series-table th[data-sort]'),"
    "function(th){th.addEventListener('click',function(){\n"
    "var key='data-'+th.getAttribute('data-sort'),num=th.hasAttribute("
    "'data-num'),asc=th.getAttribute('aria-sort')!=='ascending';\n"
    "[].forEach.call(th.parentNode.children,function(h){h.removeAttribute("
    "'aria-sort')});th.setAttribute('aria-sort',asc?'ascending':"
    "'descending');\n"
    "rows.sort(function(a,b){var x=a.getAttribute(key),y=b.getAttribute(key),"
    "c;if(num){x=x===''?NaN:+x;y=y===''?NaN:+y;if(isNaN(x)||isNaN(y))return "
    "isNaN(x)-isNaN(y);c=x-y}else c=x<y?-1:x>y?1:0;return asc?c:-c});\n"
    "rows.forEach(function(r){tb.appendChild(r)})})});\n"
    "apply();\n"
    "var orig=rows.slice(),th=q('#series-table th[data-sort=\"latest\"]');\n"
    "th.click();th.click();var xs=rows.map(function(r){return r.getAttribute("
    "'data-latest')}).filter(function(x){return x!==''}).map(Number);\n"
    "for(var i=1;i<xs.length;i++)if(xs[i]>xs[i-1])problems.push('sorting "
    "by latest does not order the rows');\n"
    "var ms=q('#machine-filter');if(ms.options.length>1){ms.value=ms.options["
    "1].value;apply();if(rows.some(function(r){return !r.hidden&&r."
    "getAttribute('data-machine')!==ms.value}))problems.push('the machine "
    "filter shows other machines');ms.value='';apply()}\n"
    "rows=orig;rows.forEach(function(r){tb.appendChild(r)});th."
    "removeAttribute('aria-sort')}\n"
    "var sc=q('#series-chart'),pt=q('#points-table tbody');\n"
    "if(sc&&pt&&sc.querySelectorAll('circle.pt').length!==pt.rows.length)"
    "problems.push('the chart does not draw every point');\n"
    "var ba=q('#branch-a'),bb=q('#branch-b'),bt=q('#branch-table tbody');\n"
    "if(ba&&bb&&bt&&data){var show=function(){var a=ba.value,b=bb.value;\n"
    "q('#head-a').textContent=a;q('#head-b').textContent=b;\n"
    "[].forEach.call(bt.rows,function(tr,i){var r=data.rows[i],x=r.by[a],y=r."
    "by[b],c=tr.cells;\n"
    "c[3].textContent=x?x.text:'-';c[4].textContent=y?y.text:'-';\n"
    "var ch=x&&y&&x.value?y.value/x.value-1:NaN;c[5].textContent=isNaN(ch)?'-'"
    ":(ch>=0?'+':'')+(100*ch).toFixed(1)+'%';\n"
    "c[5].className='n '+(isNaN(ch)||Math.abs(ch)<0.005||r.better==='none'?"
    "'flat':(ch>0)===(r.better==='lower')?'worse':'better')})};\n"
    "ba.addEventListener('change',show);bb.addEventListener('change',show);\n"
    "var keep=bb.value;bb.value=ba.value;show();[].forEach.call(bt.rows,"
    "function(tr){var t=tr.cells[5].textContent;if(t!=='-'&&t!=='+0.0%')"
    "problems.push('a branch against itself changes: '+t)});bb.value=keep;"
    "show()}\n"
    "if(errs.length)problems.push('script error: '+errs.join('; '));\n"
    "root.setAttribute('data-ok',problems.length?'0':'1');\n"
    "root.setAttribute('data-check',problems.length?problems.join('; '):"
    "'all checks passed');\n"
    "})();\n</script>\n</body></html>\n";

/* The page around body: title (escaped), the navigation (root: "" or
 * "../"), the expected element ids for the in-page check, embedded data
 * (may be NULL). */
static void page(mb__buf *out, const char *title, const char *root,
                 const char *here, const char *expect, const mb__buf *body,
                 const json_t *data)
{
    static const char *const links[][2] = {{"index.html", "Series"},
                                           {"regressions.html", "Regressions"},
                                           {"branches.html", "Branches"}};
    mb__buf nav = MB_BUF_INIT;
    mb__buf_puts(&nav, site_css);
    mb__buf_puts(&nav, "<main><nav class=\"site\">");
    for (size_t i = 0; i < 3; i++)
        mb__buf_printf(&nav, "<a href=\"%s%s\"%s>%s</a>", root, links[i][0],
                       strcmp(here, links[i][0]) == 0 ? " class=\"here\"" : "",
                       links[i][1]);
    mb__buf_puts(&nav, "</nav>\n");
    mb__buf_append(&nav, body->data ? body->data : "", body->len);
    mb__buf_puts(&nav, "</main>\n");
    mb__html_page_begin(out, true);
    esc(out, title);
    mb__html_page_body(out, true, expect, &nav);
    mb__buf_free(&nav);
    if (data) {
        mb__buf_puts(out,
                     "<script type=\"application/json\" id=\"site-data\">");
        mb__json_script_embed(out, data);
        mb__buf_puts(out, "</script>\n");
    }
    mb__buf_puts(out, site_js);
}

/* A link to commit sha (the first 10 digits shown). */
static void commit_link(mb__buf *b, const mb__site_ctx *c, const char *sha)
{
    if (!sha || !*sha) {
        mb__buf_puts(b, "-");
        return;
    }
    /* only a commit id goes into a link: a stored "commit" is user data,
     * and "javascript:..." in place of {sha} would make a script link */
    int hex = strspn(sha, "0123456789abcdef") == strlen(sha);
    const char *at =
        c->commit_url && hex ? strstr(c->commit_url, "{sha}") : NULL;
    if (at) {
        mb__buf_puts(b, "<a class=\"commit\" href=\"");
        mb__buf url = MB_BUF_INIT;
        mb__buf_append(&url, c->commit_url, (size_t)(at - c->commit_url));
        mb__buf_puts(&url, sha);
        mb__buf_puts(&url, at + 5);
        esc(b, url.data);
        mb__buf_free(&url);
        mb__buf_puts(b, "\">");
    }
    mb__buf_puts(b, "<span class=\"mono\">");
    mb__buf s = MB_BUF_INIT;
    mb__buf_append(&s, sha, strlen(sha) > 10 ? 10 : strlen(sha));
    esc(b, s.data);
    mb__buf_free(&s);
    mb__buf_puts(b, at ? "</span></a>" : "</span>");
}

static const json_t *machine(const json_t *site, const char *id)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(site, "machines"), i, m)
    {
        if (strcmp(sv(m, "id"), id) == 0)
            return m;
    }
    return NULL;
}

/* "Intel Xeon ... · 8 cores · 31 GiB" */
static void machine_text(mb__buf *b, const json_t *site, const char *id)
{
    const json_t *m = machine(site, id);
    mb__buf t = MB_BUF_INIT;
    mb__buf_printf(&t, "%s",
                   *sv(m, "cpu_model") ? sv(m, "cpu_model") : "unknown CPU");
    if (json_is_integer(json_object_get(m, "logical_cores")))
        mb__buf_printf(
            &t, " \xC2\xB7 %lld cores",
            (long long)json_integer_value(json_object_get(m, "logical_cores")));
    if (json_is_integer(json_object_get(m, "memory_gib")))
        mb__buf_printf(
            &t, " \xC2\xB7 %lld GiB",
            (long long)json_integer_value(json_object_get(m, "memory_gib")));
    esc(b, t.data);
    mb__buf_free(&t);
}

/* "model / variant / batch 8" of a series. */
static void bench_text(mb__buf *b, const json_t *s)
{
    mb__buf t = MB_BUF_INIT;
    const char *model = sv(s, "model"), *var = sv(s, "variant");
    mb__buf_printf(&t, "%s", *model ? model : var);
    if (*model && *var)
        mb__buf_printf(&t, " / %s", var);
    if (json_is_integer(json_object_get(s, "batch_size")) &&
        strcmp(sv(s, "kind"), "model") == 0)
        mb__buf_printf(
            &t, " / batch %lld",
            (long long)json_integer_value(json_object_get(s, "batch_size")));
    esc(b, t.data);
    mb__buf_free(&t);
}

/* value and "[lo, hi]" of a point-like object */
static void value_ci(mb__buf *b, const char *unit, const json_t *p, int with_ci)
{
    char v[64], lo[64], hi[64];
    esc(b, mb__site_fmt(unit, nv(p, "value"), v, sizeof v));
    if (with_ci && isfinite(nv(p, "lo")) && isfinite(nv(p, "hi")))
        mb__buf_printf(b, " <span class=\"sub\">[%s, %s]</span>",
                       mb__site_fmt(unit, nv(p, "lo"), lo, sizeof lo),
                       mb__site_fmt(unit, nv(p, "hi"), hi, sizeof hi));
}

/* ---- the index ------------------------------------------------------------
 */

static void sparkline(mb__buf *b, const json_t *spark)
{
    size_t n = json_array_size(spark), i;
    double lo = INFINITY, hi = -INFINITY;
    const json_t *v;
    json_array_foreach(spark, i, v)
    {
        double x = json_number_value(v);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    mb__buf_puts(b, "<svg class=\"spark\" viewBox=\"0 0 110 26\" role=\"img\" "
                    "aria-label=\"trend\"><polyline points=\"");
    json_array_foreach(spark, i, v)
    {
        double x = n > 1 ? 2 + 106.0 * (double)i / (double)(n - 1) : 55;
        double y =
            hi > lo ? 23 - 20 * (json_number_value(v) - lo) / (hi - lo) : 13;
        mb__buf_printf(b, "%s%.1f,%.1f", i ? " " : "", x, y);
    }
    mb__buf_puts(b, "\"/></svg>");
}

static void sort_attr(mb__buf *b, const char *name, double x)
{
    if (isfinite(x))
        mb__buf_printf(b, " data-%s=\"%.9g\"", name, x);
    else
        mb__buf_printf(b, " data-%s=\"\"", name);
}

static void index_row(const mb__site_ctx *c, const json_t *s, mb__buf *b)
{
    const json_t *sum = json_object_get(s, "summary");
    double dp = nv(sum, "change_previous"), db = nv(sum, "change_baseline");
    char t1[32], t2[32];
    mb__buf text = MB_BUF_INIT;
    mb__buf_printf(&text, "%s %s %s %s %s %s", sv(s, "kind"), sv(s, "model"),
                   sv(s, "variant"), sv(s, "metric"), sv(s, "machine"),
                   sv(sum, "lane"));
    for (size_t i = 0; i < text.len; i++)
        if (text.data[i] >= 'A' && text.data[i] <= 'Z')
            text.data[i] = (char)(text.data[i] - 'A' + 'a');
    mb__buf_printf(
        b,
        "<tr id=\"row-%s\" data-kind=\"%s\" data-machine=\"%s\" data-text=\"",
        sv(s, "id"), sv(s, "kind"), sv(s, "machine"));
    esc(b, text.data);
    mb__buf_free(&text);
    mb__buf_puts(b, "\" data-name=\"");
    bench_text(b, s);
    mb__buf_puts(b, "\" data-metric=\"");
    esc(b, sv(s, "metric"));
    mb__buf_putc(b, '"');
    sort_attr(b, "latest", nv(sum, "value"));
    sort_attr(b, "prev", dp);
    sort_attr(b, "base", db);
    sort_attr(b, "points", nv(sum, "n_points"));
    mb__buf_printf(b, "><td>%s</td><td><a href=\"s/%s.html\">", sv(s, "kind"),
                   sv(s, "id"));
    bench_text(b, s);
    mb__buf_puts(b, "</a></td><td>");
    esc(b, sv(s, "metric"));
    mb__buf_printf(b, "</td><td><span class=\"mono\" title=\"");
    machine_text(b, c->site, sv(s, "machine"));
    mb__buf_printf(b, "\">%s</span></td><td>", sv(s, "machine"));
    esc(b, sv(sum, "lane"));
    mb__buf_puts(b, "</td><td>");
    sparkline(b, json_object_get(sum, "spark"));
    mb__buf_puts(b, "</td><td class=\"n\">");
    value_ci(b, sv(s, "unit"), sum, 1);
    mb__buf_printf(
        b,
        "</td><td class=\"n %s\">%s</td><td class=\"n %s\">%s</td>"
        "<td class=\"n\">%lld</td></tr>\n",
        change_class(s, dp), pct(dp, t1, sizeof t1), change_class(s, db),
        pct(db, t2, sizeof t2),
        (long long)json_integer_value(json_object_get(sum, "n_points")));
}

static void index_controls(const mb__site_ctx *c, mb__buf *b)
{
    size_t i;
    const json_t *m;
    mb__buf_puts(b,
                 "<div class=\"controls\"><input id=\"filter\" type=\"search\" "
                 "placeholder=\"filter: model, variant, metric, branch\" "
                 "aria-label=\"filter\"><select id=\"machine-filter\" "
                 "aria-label=\"machine\"><option value=\"\">every machine"
                 "</option>");
    json_array_foreach(json_object_get(c->site, "machines"), i, m)
    {
        mb__buf_printf(b, "<option value=\"%s\">%s: ", sv(m, "id"),
                       sv(m, "id"));
        machine_text(b, c->site, sv(m, "id"));
        mb__buf_puts(b, "</option>");
    }
    mb__buf_puts(b,
                 "</select><select id=\"kind-filter\" aria-label=\"kind\">"
                 "<option value=\"\">every kind</option><option>model"
                 "</option><option>exec</option><option>suite</option>"
                 "</select><span id=\"shown\" class=\"sub\"></span></div>\n");
}

void mb__site_index_html(const mb__site_ctx *c, mb__buf *out)
{
    mb__buf b = MB_BUF_INIT;
    const json_t *site = c->site, *counts = json_object_get(site, "counts");
    mb__buf_puts(&b, "<header class=\"top\"><h1>Benchmark series</h1><div "
                     "class=\"sub\">");
    mb__buf_printf(
        &b,
        "%lld series from %lld runs, %lld change points; "
        "latest point of branch <b>",
        (long long)json_integer_value(json_object_get(counts, "series")),
        (long long)json_integer_value(json_object_get(counts, "runs")),
        (long long)json_integer_value(
            json_object_get(counts, "change_points")));
    esc(&b, sv(site, "default_branch"));
    mb__buf_puts(&b, "</b> (else the newest branch of the series); baseline: ");
    esc(&b, *sv(site, "baseline") ? sv(site, "baseline")
                                  : "the first point of that branch");
    mb__buf_printf(&b, "; points in %s order</div></header>\n",
                   sv(site, "ordered_by"));
    index_controls(c, &b);
    mb__buf_puts(
        &b, "<div class=\"tablewrap\"><table id=\"series-table\" "
            "class=\"sortable\"><thead><tr><th data-sort=\"kind\">kind</th>"
            "<th data-sort=\"name\">benchmark</th><th data-sort=\"metric\">"
            "metric</th><th data-sort=\"machine\">machine</th><th>branch"
            "</th><th>trend</th><th class=\"n\" data-sort=\"latest\" "
            "data-num>latest [95% CI]</th><th class=\"n\" data-sort=\"prev\" "
            "data-num>vs previous</th><th class=\"n\" data-sort=\"base\" "
            "data-num>vs baseline</th><th class=\"n\" data-sort=\"points\" "
            "data-num>points</th></tr></thead><tbody>\n");
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(site, "series"), i, s)
    {
        index_row(c, s, &b);
    }
    mb__buf_puts(&b, "</tbody></table></div>\n");
    page(out, "benchmark series", "", "index.html",
         "series-table filter machine-filter kind-filter", &b, NULL);
    mb__buf_free(&b);
}

/* ---- a series page ------------------------------------------------------ */

/* The display scale of a unit in charts: ns as ms, bytes as MiB. */
static double chart_scale(const char *unit, const char **label)
{
    if (strcmp(unit, "ns") == 0) {
        *label = "ms";
        return 1e-6;
    }
    if (strcmp(unit, "B") == 0) {
        *label = "MiB";
        return 1.0 / 1048576.0;
    }
    *label = strcmp(unit, "1/s") == 0 ? "per s" : "count";
    return 1;
}

/* The tooltip of point p: commit, branch, date, machine, value, CI. */
static void tooltip(mb__buf *t, const json_t *s, const json_t *p,
                    const char *mtext)
{
    char v[64], lo[64], hi[64];
    const char *unit = sv(s, "unit");
    mb__buf_printf(t, "commit %.12s\nbranch %s\ndate %s\nmachine %s (",
                   sv(p, "commit"), sv(p, "branch"), sv(p, "date"), mtext);
    size_t i;
    const json_t *h;
    json_array_foreach(json_object_get(p, "hosts"), i, h)
    {
        mb__buf_printf(t, "%s%s", i ? ", " : "", json_string_value(h));
    }
    mb__buf_printf(t, ")\n%s %s", sv(s, "metric"),
                   mb__site_fmt(unit, nv(p, "value"), v, sizeof v));
    if (isfinite(nv(p, "lo")))
        mb__buf_printf(t, " [95%% CI %s, %s]",
                       mb__site_fmt(unit, nv(p, "lo"), lo, sizeof lo),
                       mb__site_fmt(unit, nv(p, "hi"), hi, sizeof hi));
    mb__buf_printf(t, "\n%lld run(s)",
                   (long long)json_integer_value(json_object_get(p, "n_runs")));
}

static void y_range(const json_t *pts, double k, double *lo, double *hi)
{
    size_t i;
    const json_t *p;
    *lo = INFINITY;
    *hi = -INFINITY;
    json_array_foreach(pts, i, p)
    {
        double a = nv(p, "value"), l = nv(p, "lo"), h = nv(p, "hi");
        double xs[3] = {a, isfinite(l) ? l : a, isfinite(h) ? h : a};
        for (int j = 0; j < 3; j++) {
            *lo = xs[j] * k < *lo ? xs[j] * k : *lo;
            *hi = xs[j] * k > *hi ? xs[j] * k : *hi;
        }
    }
    if (!(*hi > *lo)) {
        *lo = *lo * 0.9 - 1e-9;
        *hi = *hi * 1.1 + 1e-9;
    }
    double pad = (*hi - *lo) * 0.08;
    *lo = *lo - pad > 0 || *lo < 0 ? *lo - pad : 0;
    *hi += pad;
    mb__svg_nice_range(lo, hi);
}

static void chart_marks(mb__svg *g, const json_t *s, const json_t *pts,
                        double k, const char *mtext)
{
    mb__buf *b = g->out;
    size_t i, li;
    const json_t *p, *lane;
    json_array_foreach(json_object_get(s, "branches"), li, lane)
    {
        mb__buf_printf(b,
                       "<polyline fill=\"none\" stroke=\"%s\" "
                       "stroke-width=\"1.5\" points=\"",
                       mb__svg_color(li));
        json_array_foreach(pts, i, p)
        {
            if (strcmp(sv(p, "branch"), json_string_value(lane)) == 0)
                mb__buf_printf(b, "%.1f,%.1f ", mb__svg_px(g, (double)i),
                               mb__svg_py(g, nv(p, "value") * k));
        }
        mb__buf_puts(b, "\"/>");
        mb__svg_legend(g, json_string_value(lane), mb__svg_color(li), 1);
    }
    json_array_foreach(pts, i, p)
    {
        size_t lane_ix = 0, j;
        json_array_foreach(json_object_get(s, "branches"), j, lane)
        {
            if (strcmp(sv(p, "branch"), json_string_value(lane)) == 0)
                lane_ix = j;
        }
        double x = mb__svg_px(g, (double)i);
        if (*sv(p, "change_point")) {
            mb__buf_printf(b, "<line class=\"cp-line\" data-commit=\"");
            esc(b, sv(p, "commit"));
            mb__buf_printf(
                b, "\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>",
                x - 0.5 * (mb__svg_px(g, 1) - mb__svg_px(g, 0)),
                x - 0.5 * (mb__svg_px(g, 1) - mb__svg_px(g, 0)), g->mt,
                g->h - g->mb);
            mb__buf t = MB_BUF_INIT;
            mb__buf_printf(&t, "change point (%s) at %.12s",
                           sv(p, "change_point"), sv(p, "commit"));
            esc(b, t.data);
            mb__buf_free(&t);
            mb__buf_puts(b, "</title></line>");
        }
        if (isfinite(nv(p, "lo")) && isfinite(nv(p, "hi")))
            mb__buf_printf(b,
                           "<line class=\"ci-bar\" x1=\"%.1f\" x2=\"%.1f\" "
                           "y1=\"%.1f\" y2=\"%.1f\"/>",
                           x, x, mb__svg_py(g, nv(p, "lo") * k),
                           mb__svg_py(g, nv(p, "hi") * k));
        int failed = 0;
        size_t gi;
        const json_t *gv;
        json_array_foreach(json_object_get(p, "gate"), gi, gv)
        {
            failed |= !json_is_true(json_object_get(gv, "passed"));
        }
        mb__buf_printf(b, "<circle id=\"pt-%zu\" class=\"pt%s\" data-commit=\"",
                       i, failed ? " gate-fail" : "");
        esc(b, sv(p, "commit"));
        mb__buf_printf(
            b, "\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>", x,
            mb__svg_py(g, nv(p, "value") * k), failed ? "5" : "3.2",
            failed ? "#D55E00" : mb__svg_color(lane_ix));
        mb__buf t = MB_BUF_INIT;
        tooltip(&t, s, p, mtext);
        esc(b, t.data);
        mb__buf_free(&t);
        mb__buf_puts(b, "</title></circle>");
    }
}

static void series_chart(const mb__site_ctx *c, const json_t *s, mb__buf *b)
{
    const json_t *pts = json_object_get(s, "points");
    const char *ulabel;
    double k = chart_scale(sv(s, "unit"), &ulabel), lo, hi;
    y_range(pts, k, &lo, &hi);
    mb__buf ylab = MB_BUF_INIT, mt = MB_BUF_INIT;
    mb__buf_printf(&ylab, "%s (%s)", sv(s, "metric"), ulabel);
    machine_text(&mt, c->site, sv(s, "machine"));
    mb__buf_puts(b, "<div class=\"chart-wrap\">");
    mb__svg g;
    mb__svg_begin(&g, b, "series-chart",
                  "points in commit order, 95% CIs, change points dashed", 1100,
                  380);
    size_t n = json_array_size(pts);
    g.x = (mb__svg_axis){-0.5, (double)(n ? n : 1) - 0.5, 0,
                         "point (commit order)"};
    g.y = (mb__svg_axis){lo, hi, 0, ylab.data ? ylab.data : ""};
    mb__svg_axes(&g, 0);
    chart_marks(&g, s, pts, k, mt.data ? mt.data : "");
    mb__svg_end(&g, "Hover a point for its commit, branch, date, machine and "
                    "runs; red points failed a stored requirement (gate).");
    mb__buf_puts(b, "</div>\n");
    mb__buf_free(&ylab);
    mb__buf_free(&mt);
}

static void point_row(const mb__site_ctx *c, const json_t *s, const json_t *p,
                      size_t i, mb__buf *b)
{
    const char *cp = sv(p, "change_point");
    mb__buf_printf(b, "<tr id=\"point-%zu\"%s data-commit=\"", i,
                   *cp ? " class=\"cp\"" : "");
    esc(b, sv(p, "commit"));
    mb__buf_printf(b, "\" data-cp=\"%s\"><td class=\"n\">%zu</td><td>", cp,
                   i + 1);
    commit_link(b, c, sv(p, "commit"));
    mb__buf_puts(b, "</td><td>");
    esc(b, sv(p, "branch"));
    mb__buf_puts(b, "</td><td>");
    esc(b, sv(p, "date"));
    mb__buf_puts(b, "</td><td class=\"n\">");
    value_ci(b, sv(s, "unit"), p, 1);
    mb__buf_printf(b, "</td><td>%lld: <span class=\"mono\">",
                   (long long)json_integer_value(json_object_get(p, "n_runs")));
    size_t j;
    const json_t *v;
    json_array_foreach(json_object_get(p, "runs"), j, v)
    {
        mb__buf_printf(b, "%s%lld", j ? ", #" : "#",
                       (long long)json_integer_value(v));
    }
    mb__buf_puts(b, "</span> on ");
    json_array_foreach(json_object_get(p, "hosts"), j, v)
    {
        if (j)
            mb__buf_puts(b, ", ");
        esc(b, json_string_value(v));
    }
    mb__buf_printf(b, "</td><td class=\"%s\">%s</td><td>",
                   strcmp(cp, "regression") == 0 ? "worse" : "flat",
                   *cp ? cp : "");
    json_array_foreach(json_object_get(p, "gate"), j, v)
    {
        int ok = json_is_true(json_object_get(v, "passed"));
        mb__buf_printf(b, "<span class=\"%s\">%s</span> ",
                       ok ? "better" : "worse", ok ? "PASS" : "FAIL");
        esc(b, sv(v, "requirement"));
        mb__buf_puts(b, " ");
    }
    mb__buf_puts(b, "</td></tr>\n");
}

static void change_point_list(const mb__site_ctx *c, const json_t *s,
                              mb__buf *b)
{
    size_t i;
    const json_t *e;
    char t[64], lo[32], hi[32], bv[64], av[64];
    mb__buf_puts(b, "<h2>Change points</h2>");
    if (!json_array_size(json_object_get(s, "change_points")))
        mb__buf_puts(b, "<p class=\"sub\">none found</p>\n");
    mb__buf_puts(b, "<ul id=\"change-points\">");
    json_array_foreach(json_object_get(s, "change_points"), i, e)
    {
        const json_t *ci = json_object_get(e, "ci");
        mb__buf_printf(b, "<li class=\"%s\">%s on ",
                       change_class(s, nv(e, "change")), sv(e, "direction"));
        esc(b, sv(e, "branch"));
        mb__buf_puts(b, " between ");
        commit_link(b, c, sv(e, "prev_commit"));
        mb__buf_puts(b, " and ");
        commit_link(b, c, sv(e, "commit"));
        mb__buf_printf(
            b, ": %s (%s to %s)", pct(nv(e, "change"), t, sizeof t),
            mb__site_fmt(sv(s, "unit"), nv(e, "before"), bv, sizeof bv),
            mb__site_fmt(sv(s, "unit"), nv(e, "after"), av, sizeof av));
        if (json_is_object(ci))
            mb__buf_printf(b, ", 95%% CI %s to %s",
                           pct(nv(ci, "lo"), lo, sizeof lo),
                           pct(nv(ci, "hi"), hi, sizeof hi));
        mb__buf_printf(b, ", score %.1f</li>", nv(e, "score"));
    }
    mb__buf_puts(b, "</ul>\n");
}

void mb__site_series_html(const mb__site_ctx *c, const json_t *s, mb__buf *out)
{
    mb__buf b = MB_BUF_INIT, title = MB_BUF_INIT;
    mb__buf_printf(&title, "%s %s %s %s", sv(s, "kind"),
                   *sv(s, "model") ? sv(s, "model") : sv(s, "variant"),
                   sv(s, "metric"), sv(s, "machine"));
    mb__buf_printf(&b,
                   "<header class=\"top\"><h1><span class=\"kind\">%s</span> ",
                   sv(s, "kind"));
    bench_text(&b, s);
    mb__buf_puts(&b, " \xC2\xB7 ");
    esc(&b, sv(s, "metric"));
    mb__buf_printf(&b,
                   "</h1><div class=\"sub\">machine %s: ", sv(s, "machine"));
    machine_text(&b, c->site, sv(s, "machine"));
    mb__buf_printf(&b, "; %zu points; series %s</div></header>\n",
                   json_array_size(json_object_get(s, "points")), sv(s, "id"));
    series_chart(c, s, &b);
    change_point_list(c, s, &b);
    mb__buf_puts(
        &b, "<h2>Points and the runs behind them</h2><div class=\"tablewrap\">"
            "<table id=\"points-table\"><thead><tr><th class=\"n\">#</th>"
            "<th>commit</th><th>branch</th><th>date</th><th class=\"n\">"
            "value [95% CI]</th><th>runs (store ids) and hosts</th><th>"
            "change point</th><th>gate</th></tr></thead><tbody>\n");
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(s, "points"), i, p)
    {
        point_row(c, s, p, i, &b);
    }
    mb__buf_puts(&b, "</tbody></table></div>\n");
    page(out, title.data ? title.data : "", "../", "",
         "series-chart points-table", &b, NULL);
    mb__buf_free(&b);
    mb__buf_free(&title);
}

/* ---- the regressions ------------------------------------------------------
 */

static const json_t *series_by_id(const json_t *site, const char *id)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(site, "series"), i, s)
    {
        if (strcmp(sv(s, "id"), id) == 0)
            return s;
    }
    return NULL;
}

static void regression_row(const mb__site_ctx *c, const json_t *e, mb__buf *b)
{
    const json_t *s = series_by_id(c->site, sv(e, "series"));
    int gate = strcmp(sv(e, "type"), "gate") == 0;
    const char *dir = gate ? "regression" : sv(e, "direction");
    char t[32], lo[32], hi[32];
    mb__buf_printf(b, "<tr class=\"%s\" data-series=\"%s\" data-commit=\"",
                   gate ? "gate" : "change-point", sv(e, "series"));
    esc(b, sv(e, "commit"));
    mb__buf_printf(b, "\" data-direction=\"%s\"><td>", gate ? "gate" : dir);
    esc(b, sv(e, "date"));
    mb__buf_printf(b, "</td><td class=\"%s\">%s</td><td><a href=\"s/%s.html\">",
                   strcmp(dir, "regression") == 0 ? "worse" : "flat",
                   gate ? "failed gate" : dir, sv(e, "series"));
    bench_text(b, s);
    mb__buf_puts(b, " \xC2\xB7 ");
    esc(b, sv(s, "metric"));
    mb__buf_printf(b, "</a></td><td><span class=\"mono\">%s</span></td><td>",
                   sv(s, "machine"));
    esc(b, sv(e, "branch"));
    mb__buf_puts(b, "</td><td>");
    if (!gate) {
        commit_link(b, c, sv(e, "prev_commit"));
        mb__buf_puts(b, " .. ");
    }
    commit_link(b, c, sv(e, "commit"));
    if (gate) {
        mb__buf_puts(b, "</td><td></td><td></td><td>");
        esc(b, sv(e, "requirement"));
        mb__buf_puts(b, ": ");
        esc(b, sv(e, "value"));
    } else {
        const json_t *ci = json_object_get(e, "ci");
        mb__buf_printf(b, "</td><td class=\"n %s\">%s</td><td class=\"n\">",
                       change_class(s, nv(e, "change")),
                       pct(nv(e, "change"), t, sizeof t));
        if (json_is_object(ci))
            mb__buf_printf(b, "%s to %s", pct(nv(ci, "lo"), lo, sizeof lo),
                           pct(nv(ci, "hi"), hi, sizeof hi));
        mb__buf_printf(b, "</td><td>score %.1f", nv(e, "score"));
    }
    mb__buf_puts(b, "</td></tr>\n");
}

void mb__site_regressions_html(const mb__site_ctx *c, mb__buf *out)
{
    mb__buf b = MB_BUF_INIT;
    const json_t *reg = json_object_get(c->site, "regressions");
    mb__buf_printf(&b,
                   "<header class=\"top\"><h1>Change points and failed "
                   "gates</h1><div class=\"sub\">%zu entries, newest first; "
                   "the same list for bots: <a href=\"regressions.json\">"
                   "regressions.json</a>.  A change is the step between the "
                   "medians of the points before and after; its 95%% CI is "
                   "the Welch t interval of the ratio of their geometric "
                   "means.</div></header>\n",
                   json_array_size(reg));
    mb__buf_puts(
        &b, "<div class=\"tablewrap\"><table id=\"regressions-table\">"
            "<thead><tr><th>commit date</th><th>what</th><th>series</th>"
            "<th>machine</th><th>branch</th><th>commits</th><th class=\"n\">"
            "change</th><th class=\"n\">95% CI</th><th>detail</th></tr>"
            "</thead><tbody>\n");
    size_t i;
    const json_t *e;
    json_array_foreach(reg, i, e)
    {
        regression_row(c, e, &b);
    }
    mb__buf_puts(&b, "</tbody></table></div>\n");
    page(out, "regressions", "", "regressions.html", "regressions-table", &b,
         NULL);
    mb__buf_free(&b);
}

json_t *mb__site_regressions_json(const json_t *site)
{
    json_t *out = json_array();
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(site, "regressions"), i, e)
    {
        const json_t *s = series_by_id(site, sv(e, "series"));
        json_t *x = json_deep_copy(e);
        char pagebuf[64];
        snprintf(pagebuf, sizeof pagebuf, "s/%s.html", sv(e, "series"));
        json_object_del(x, "depth");
        json_object_set_new(
            x, "series",
            json_pack("{s:O,s:O,s:O?,s:O?,s:O?,s:O,s:O,s:O,s:s}", "id",
                      json_object_get(s, "id"), "kind",
                      json_object_get(s, "kind"), "model",
                      json_object_get(s, "model"), "variant",
                      json_object_get(s, "variant"), "batch_size",
                      json_object_get(s, "batch_size"), "metric",
                      json_object_get(s, "metric"), "unit",
                      json_object_get(s, "unit"), "machine",
                      json_object_get(s, "machine"), "page", pagebuf));
        if (!x || json_array_append_new(out, x)) {
            json_decref(out);
            return NULL;
        }
    }
    return json_pack("{s:s,s:O,s:O,s:o}", "schema", "mbench.regressions/1",
                     "default_branch", json_object_get(site, "default_branch"),
                     "machines", json_object_get(site, "machines"), "entries",
                     out);
}

/* ---- the branch view ------------------------------------------------------
 */

/* {text, value, commit} of the latest point of s on each branch */
static json_t *branch_cells(const json_t *s)
{
    json_t *by = json_object();
    const char *br;
    const json_t *l;
    json_object_foreach((json_t *)json_object_get(s, "latest_by_branch"), br, l)
    {
        mb__buf t = MB_BUF_INIT;
        char v[64];
        mb__buf_printf(
            &t, "%s", mb__site_fmt(sv(s, "unit"), nv(l, "value"), v, sizeof v));
        if (isfinite(nv(l, "lo")) && isfinite(nv(l, "hi"))) {
            char lo[64], hi[64];
            mb__buf_printf(
                &t, " [%s, %s]",
                mb__site_fmt(sv(s, "unit"), nv(l, "lo"), lo, sizeof lo),
                mb__site_fmt(sv(s, "unit"), nv(l, "hi"), hi, sizeof hi));
        }
        mb__buf_printf(&t, " @ %.10s", sv(l, "commit"));
        json_object_set_new(by, br,
                            json_pack("{s:s,s:O,s:O?}", "text",
                                      t.data ? t.data : "", "value",
                                      json_object_get(l, "value"), "commit",
                                      json_object_get(l, "commit")));
        mb__buf_free(&t);
    }
    return by;
}

static void branch_select(mb__buf *b, const char *id, const json_t *branches,
                          const char *chosen)
{
    size_t i;
    const json_t *br;
    mb__buf_printf(b, "<select id=\"%s\" aria-label=\"%s\">", id, id);
    json_array_foreach(branches, i, br)
    {
        mb__buf_printf(b, "<option%s value=\"",
                       strcmp(sv(br, "name"), chosen) == 0 ? " selected" : "");
        esc(b, sv(br, "name"));
        mb__buf_puts(b, "\">");
        esc(b, sv(br, "name"));
        mb__buf_printf(
            b, " (%lld points)</option>",
            (long long)json_integer_value(json_object_get(br, "points")));
    }
    mb__buf_puts(b, "</select>");
}

static void branch_row(const json_t *s, const json_t *cells, const char *a,
                       const char *bn, mb__buf *b)
{
    const json_t *x = json_object_get(cells, a),
                 *y = json_object_get(cells, bn);
    double ch = x && y && nv(x, "value") != 0
                    ? nv(y, "value") / nv(x, "value") - 1
                    : NAN;
    char t[32];
    mb__buf_printf(b, "<tr data-series=\"%s\"><td><a href=\"s/%s.html\">",
                   sv(s, "id"), sv(s, "id"));
    bench_text(b, s);
    mb__buf_puts(b, "</a></td><td>");
    esc(b, sv(s, "metric"));
    mb__buf_printf(
        b, "</td><td><span class=\"mono\">%s</span></td><td class=\"n\">",
        sv(s, "machine"));
    esc(b, x ? sv(x, "text") : "-");
    mb__buf_puts(b, "</td><td class=\"n\">");
    esc(b, y ? sv(y, "text") : "-");
    mb__buf_printf(b, "</td><td class=\"n %s\">%s</td></tr>\n",
                   change_class(s, ch), pct(ch, t, sizeof t));
}

void mb__site_branches_html(const mb__site_ctx *c, mb__buf *out)
{
    mb__buf b = MB_BUF_INIT;
    const json_t *site = c->site, *branches = json_object_get(site, "branches");
    const char *a = sv(site, "default_branch"),
               *bn = sv(site, "compare_branch");
    json_t *rows = json_array();
    mb__buf_puts(&b, "<header class=\"top\"><h1>Branches side by side</h1><div "
                     "class=\"sub\">the latest point of each series on two "
                     "branches</div></header>\n<div class=\"controls\">");
    branch_select(&b, "branch-a", branches, a);
    mb__buf_puts(&b, " against ");
    branch_select(&b, "branch-b", branches, bn);
    mb__buf_puts(&b,
                 "</div>\n<div class=\"tablewrap\"><table id=\"branch-table\">"
                 "<thead><tr><th>series</th><th>metric</th><th>machine</th>"
                 "<th class=\"n\" id=\"head-a\">");
    esc(&b, a);
    mb__buf_puts(&b, "</th><th class=\"n\" id=\"head-b\">");
    esc(&b, bn);
    mb__buf_puts(&b, "</th><th class=\"n\">change</th></tr></thead><tbody>\n");
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(site, "series"), i, s)
    {
        json_t *cells = branch_cells(s);
        branch_row(s, cells, a, bn, &b);
        json_array_append_new(
            rows,
            json_pack("{s:O,s:O,s:o}", "id", json_object_get(s, "id"), "better",
                      json_object_get(s, "better"), "by", cells));
    }
    mb__buf_puts(&b, "</tbody></table></div>\n");
    json_t *data = json_pack("{s:o}", "rows", rows);
    page(out, "branches", "", "branches.html", "branch-table branch-a branch-b",
         &b, data);
    json_decref(data);
    mb__buf_free(&b);
}
