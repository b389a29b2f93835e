/* html_assets.h - the inline stylesheet and script of the HTML report
 * (constant text written by mbench; no user data ever goes in here). */
#ifndef MB_REPORT_HTML_ASSETS_H
#define MB_REPORT_HTML_ASSETS_H

static const char *const mb_html_css[] = {
    ":root{--bg:#ffffff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--grid:#"
    "eef1f4;",
    "--panel:#f6f8fa;--accent:#0072B2;--warn-bg:#fff8e6;--warn-line:#e6a700;--"
    "bad:#c2410c;",
    "--good:#047857;color-scheme:light dark}\n",
    "@media "
    "(prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e6edf3;--muted:#"
    "9aa5b1;",
    "--line:#30363d;--grid:#1f252c;--panel:#161b22;--accent:#56B4E9;--warn-bg:#"
    "2b2312;",
    "--warn-line:#b8860b;--bad:#f08a5d;--good:#34d399}}\n",
    "*{box-sizing:border-box}\n",
    "body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 "
    "system-ui,-apple-system,",
    "'Segoe UI',Roboto,'Helvetica "
    "Neue',Arial,sans-serif;font-variant-numeric:tabular-nums}\n",
    "main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}\n",
    "header.top{display:flex;flex-wrap:wrap;align-items:flex-end;gap:12px "
    "24px;",
    "border-bottom:1px solid "
    "var(--line);padding-bottom:14px;margin-bottom:18px}\n",
    "header.top "
    "h1{font-size:22px;margin:0;font-weight:650;letter-spacing:-.01em}\n",
    "header.top h1 .kind{color:var(--accent)}\n",
    ".sub{color:var(--muted);font-size:13px}\n",
    ".actions{margin-left:auto;display:flex;gap:8px}\n",
    "button{font:inherit;font-size:13px;padding:5px 12px;border:1px solid "
    "var(--line);",
    "border-radius:6px;background:var(--panel);color:var(--fg);cursor:pointer}"
    "\n",
    "button:hover{border-color:var(--accent)}\n",
    "h2{font-size:16px;margin:28px 0 10px;font-weight:650}\n",
    "h3{font-size:14px;margin:18px 0 8px;color:var(--muted);font-weight:600}\n",
    ".verdict{font-size:15px;padding:12px "
    "16px;border-radius:8px;background:var(--panel);",
    "border-left:4px solid var(--accent)}\n",
    ".verdict .faster,.verdict "
    ".pass{color:var(--good);font-weight:650}.verdict "
    ".slower,.verdict .failed{",
    "color:var(--bad);font-weight:650}\n",
    ".warnings{margin:14px 0 0;padding:10px 16px 10px "
    "34px;background:var(--warn-bg);",
    "border:1px solid var(--warn-line);border-radius:8px}\n",
    ".warnings li{margin:2px 0}\n",
    ".tablewrap{overflow-x:auto}\n",
    "table{border-collapse:collapse;width:100%;font-size:12.5px}\n",
    "th,td{padding:6px 8px;border-bottom:1px solid "
    "var(--line);text-align:left;",
    "vertical-align:top}\n",
    "td.n,th.n{text-align:right;white-space:nowrap}\n",
    "thead "
    "th{font-weight:600;color:var(--muted);white-space:nowrap;background:var(--"
    "bg)}\n",
    "table.sortable thead th{cursor:pointer;user-select:none}\n",
    "table.sortable thead th:hover{color:var(--fg)}\n",
    "th[aria-sort=ascending]::after{content:' \\25B2';font-size:10px}\n",
    "th[aria-sort=descending]::after{content:' \\25BC';font-size:10px}\n",
    "tbody tr:hover{background:var(--panel)}\n",
    "tr.base td:first-child{box-shadow:inset 3px 0 0 var(--accent)}\n",
    ".badge{display:inline-block;font-size:11px;padding:0 "
    "6px;margin-left:6px;border-radius:9px;",
    "border:1px solid "
    "var(--accent);color:var(--accent);vertical-align:1px;white-space:nowrap;"
    "font-weight:500}\n",
    "td.notes{min-width:14em}\n"
    ".st-failed{color:var(--bad);font-weight:600}.ci{color:var(--muted);font-"
    "size:12px}\n",
    ".name{font-weight:600;overflow-wrap:anywhere;min-width:9em;max-width:22em}"
    "\n",
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:14px 24px}\n",
    "@media (max-width:900px){.grid2{grid-template-columns:1fr}}\n",
    "figure.chart{margin:0 0 18px;padding:12px 12px 8px;border:1px solid "
    "var(--line);",
    "border-radius:8px;background:var(--bg);break-inside:avoid}\n",
    "figure.chart>svg{width:100%;height:auto;display:block;overflow:visible}\n",
    "figcaption{color:var(--muted);font-size:12px;margin-top:4px}\n",
    ".chart-title{font-weight:600;font-size:13px;margin:0 0 6px}\n",
    "svg text{fill:var(--fg);font-size:12px}\n",
    "svg text.tick{fill:var(--muted);font-size:11px}\n",
    "svg text.axlabel{fill:var(--muted);font-size:12px}\n",
    "svg text.note,svg text.ptlabel{fill:var(--muted);font-size:11px}\n",
    "svg text.failed{fill:var(--bad);font-weight:600}\n",
    "svg text.identical{fill:#fff;font-size:11px;font-weight:600}\n",
    "figure.heatmap{margin:0 0 18px}figure.heatmap img{display:block}\n",
    "svg .grid{stroke:var(--grid);stroke-width:1}\n",
    "svg .axis{stroke:var(--muted);stroke-width:1}\n",
    "svg .ref{stroke:var(--fg);stroke-width:1.2;stroke-dasharray:4 3}\n",
    "svg .violin path{fill-opacity:.5;stroke-width:1.2}\n",
    "svg .pctbox rect{fill-opacity:.35;stroke-dasharray:4 2}\n",
    "svg .pctbox line{stroke-width:1.5}\n",
    "svg .m50{stroke:var(--fg);stroke-width:2.5}\n",
    "svg .m95{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:3 2}\n",
    "svg .m99{stroke:#D55E00;stroke-width:1.5;stroke-dasharray:3 2}\n",
    "svg rect.ci{fill:#999999}\n",
    "svg .hit{fill:transparent}\n",
    "svg .line{fill:none;stroke-width:2}\n",
    "svg .line.dash{stroke-dasharray:6 4}\n",
    "svg .pt{stroke:var(--bg);stroke-width:1.5}\n",
    "svg .pt.hollow{fill:var(--bg);stroke-width:2}\n",
    "svg .bar.light{fill-opacity:.45}\n",
    "svg .whisker path{stroke:var(--fg);stroke-width:1.5;fill:none}\n",
    "svg .mark:hover line,svg .series:hover .line{stroke-width:3}\n",
    "svg rect.bar:hover,svg .violin path:hover{fill-opacity:.8}\n",
    ".legend{display:flex;flex-wrap:wrap;gap:4px "
    "16px;font-size:12px;color:var(--muted);",
    "margin-top:4px}\n",
    ".legend "
    "span{display:inline-flex;align-items:center;gap:6px;word-break:break-all}"
    "\n",
    ".legend i{display:inline-block;width:12px;height:12px;border-radius:2px;",
    "background:var(--c)}\n",
    ".legend i.ln{height:0;width:18px;border-top:2.5px solid "
    "var(--c);background:none;",
    "border-radius:0}\n",
    ".legend i.ln.dash{border-top-style:dashed}\n",
    "dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:3px "
    "18px;margin:0;",
    "font-size:13px}\n",
    "dl.meta dt{color:var(--muted)}dl.meta "
    "dd{margin:0;word-break:break-word}\n",
    "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"
    "monospace;",
    "font-size:12px}\n",
    ".panel{border:1px solid var(--line);border-radius:8px;padding:12px 16px;",
    "background:var(--panel)}\n",
    "details summary{cursor:pointer;color:var(--muted)}\n",
    "footer{margin-top:32px;color:var(--muted);font-size:12px;border-top:1px "
    "solid var(--line);",
    "padding-top:10px}\n",
    "@media "
    "print{:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--grid:#e8e8e8;",
    "--panel:#fff;--warn-bg:#fff}body{font-size:11px}main{max-width:none;"
    "padding:0}",
    ".actions,.noprint{display:none}figure.chart,table,.panel{break-inside:"
    "avoid}",
    "h2{break-after:avoid}.grid2{grid-template-columns:1fr "
    "1fr}a{color:inherit}",
    "details{display:block}details>*{display:block}}\n",
    NULL};

static const char *const mb_html_js[] = {
    "(function(){\n", "'use strict';\n", "var errs=window.__mbErr||[];\n",
    "function val(td){var v=td.getAttribute('data-v');",
    "if(v!==null&&v!==''&&!isNaN(+v))return +v;return null}\n",
    "function sortTable(table,col,dir){var tb=table.tBodies[0];",
    "var rows=Array.prototype.slice.call(tb.rows);",
    "rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];",
    "var vx=val(x),vy=val(y),r;",
    "if(vx===null&&vy===null)r=x.textContent.localeCompare(y.textContent);",
    "else if(vx===null)return 1;else if(vy===null)return -1;else r=vx-vy;",
    "return dir*r||(+a.getAttribute('data-i'))-(+b.getAttribute('data-i'))});",
    "rows.forEach(function(r){tb.appendChild(r)});",
    "Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){",
    "if(i===col)th.setAttribute('aria-sort',dir>0?'ascending':'descending');",
    "else th.removeAttribute('aria-sort')})}\n",
    "Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),"
    "function(t){",
    "Array.prototype.forEach.call(t.tBodies[0].rows,function(r,i){r."
    "setAttribute('data-i',i)});",
    "Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){",
    "th.title='Sort by this column';",
    "th.addEventListener('click',function(){",
    "sortTable(t,i,th.getAttribute('aria-sort')==='ascending'?-1:1)})})});\n",
    "var data=document.getElementById('mbench-data');\n",
    "var dl=document.getElementById('download-json');\n",
    "if(dl)dl.addEventListener('click',function(){",
    "var blob=new Blob([data.textContent],{type:'application/json'});",
    "var a=document.createElement('a');a.href=URL.createObjectURL(blob);",
    "a.download=dl.getAttribute('data-file')||'mbench-result.json';",
    "document.body.appendChild(a);a.click();",
    "setTimeout(function(){URL.revokeObjectURL(a.href);a.remove()},0)});\n",
    "var pr=document.getElementById('print');\n",
    "if(pr)pr.addEventListener('click',function(){window.print()});\n",
    /* Self-check: every expected chart drawn, the JSON parses, the sort
     * works, no script error.  The browser test reads data-ok. */
    "var problems=[];\n",
    "try{JSON.parse(data.textContent)}catch(e){problems.push('embedded JSON: "
    "'+e.message)}\n",
    "(document.body.getAttribute('data-expect')||'').split(' "
    "').forEach(function(id){",
    "if(!id)return;var e=document.getElementById(id);",
    "if(!e){problems.push('missing chart '+id);return}",
    "var r=e.getBoundingClientRect();",
    "if(!(r.width>0&&r.height>0))problems.push('empty chart '+id);",
    "else if(e.querySelectorAll('path,rect,circle').length<1)problems.push('no "
    "marks in '+id)});\n",
    "var st=document.getElementById('summary');\n",
    "if(st&&st.tBodies[0].rows.length>1){var "
    "c=+st.getAttribute('data-sortcheck');",
    "sortTable(st,c,1);var prev=-Infinity,okSort=true;",
    "Array.prototype.forEach.call(st.tBodies[0].rows,function(r){var "
    "v=val(r.cells[c]);",
    "if(v!==null){if(v<prev)okSort=false;prev=v}});",
    "if(!okSort)problems.push('sorting the summary table failed');",
    "sortTable(st,0,1);Array.prototype.forEach.call(st.tBodies[0].rows,"
    "function(){});",
    "var rows=Array.prototype.slice.call(st.tBodies[0].rows);",
    "rows.sort(function(a,b){return "
    "a.getAttribute('data-i')-b.getAttribute('data-i')});",
    "rows.forEach(function(r){st.tBodies[0].appendChild(r)});",
    "Array.prototype.forEach.call(st.tHead.rows[0].cells,function(th){",
    "th.removeAttribute('aria-sort')})}\n",
    "problems=problems.concat(errs.map(function(m){return 'script error: "
    "'+m}));\n",
    "var root=document.documentElement;\n",
    "root.setAttribute('data-ok',problems.length?'0':'1');\n",
    "root.setAttribute('data-check',problems.length?problems.join('; '):'all "
    "charts present');\n",
    "})();\n", NULL};

#endif
