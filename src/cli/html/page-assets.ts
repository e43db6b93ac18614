// The page's one style sheet and one script, inlined (the report opens from a file, offline,
// under a Content-Security-Policy that allows exactly these two by hash). The script only
// sorts, filters and counts down; it reads the page and writes text, never markup, so no
// string from a log can become code.

export const PAGE_STYLE = `
:root{--ink:#1d1d1f;--muted:#5f6368;--line:#d9dce1;--bg:#fff;--soft:#f5f6f8;--leak:#b3261e;--risk:#8a8f98;--ok:#1e7b34;--warn:#9a6700}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 28px 64px}
h1{font-size:26px;margin:4px 0 12px}
h2{font-size:18px;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:18px 0 6px}
p{margin:6px 0}
.eyebrow{color:var(--muted);font-size:12px;letter-spacing:.02em;text-transform:uppercase}
.muted{color:var(--muted)}
nav{display:flex;flex-wrap:wrap;gap:6px 16px;margin:14px 0 0;font-size:13px}
nav a{color:var(--ink)}
.verdict{border-left:6px solid var(--muted);background:var(--soft);padding:12px 16px;font-size:16px}
.verdict strong{display:block;font-size:19px;margin-bottom:2px}
.verdict.leak{border-color:var(--leak)}.verdict.leak strong{color:var(--leak)}
.verdict.clean{border-color:var(--ok)}.verdict.clean strong{color:var(--ok)}
.verdict.partial{border-color:var(--warn)}.verdict.partial strong{color:var(--warn)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:12px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.card .v{font-size:24px;font-weight:600;font-variant-numeric:tabular-nums}
.card .v.t{font-size:14px}
.card .k{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600}
td.n,th.n{text-align:right}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
#sightings-table td{white-space:nowrap}
tr.c-cross_tenant td:nth-child(3){color:var(--leak);font-weight:600}tr.c-cross_session td:nth-child(3){color:var(--leak)}
.scroll{overflow:auto;max-height:640px;border:1px solid var(--line)}
.scroll table{margin:0}
.scroll thead th{position:sticky;top:0;background:var(--bg)}
th button{all:unset;cursor:pointer}
th button:focus-visible{outline:2px solid #1a73e8}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.tools{display:flex;gap:12px;align-items:center;margin:8px 0}
input[type=search]{font:inherit;padding:5px 8px;width:340px;max-width:100%;border:1px solid var(--line);border-radius:4px}
.chart{max-width:100%;height:auto;display:block}
.chart text{font-size:11px;fill:var(--ink)}
.chart .tick{fill:var(--muted)}
.chart .grid{stroke:#f0e2e0}.chart .grid.day{stroke:#c9ccd1}.chart .tick.day{fill:var(--ink);font-weight:600}
.chart .axis{stroke:#9aa0a6}
.chart .window{fill:#fbe9e7}
.chart .bar-leak{fill:var(--leak)}
.chart .bar-text{fill:#e6a19b}
.chart .bar-risk{fill:var(--risk)}
.chart .mark-aware{stroke:#1a73e8;stroke-width:2;stroke-dasharray:5 3}
.chart .mark-deadline{stroke:var(--warn);stroke-width:2;stroke-dasharray:2 3}
.chart .mark-text-aware{fill:#1a73e8}.chart .mark-text-deadline{fill:var(--warn)}
.chart .cell-0{fill:#f4f5f7}
.legend{display:flex;gap:16px;font-size:12px;color:var(--muted);margin:4px 0}
.sw{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:-1px}
.sw.leak{background:var(--leak)}.sw.text{background:#e6a19b}.sw.risk{background:var(--risk)}.sw.win{background:#fbe9e7;border:1px solid #f3c7c0}
.sw.aware{border-top:2px dashed #1a73e8;height:0;width:14px}.sw.deadline{border-top:2px dotted var(--warn);height:0;width:14px}
.matrix td{padding:2px 4px;font-size:11px;text-align:right;border:1px solid #eceef1}
.matrix th{font-size:11px;padding:2px 4px;border:1px solid #eceef1;white-space:nowrap}
.matrix thead th{writing-mode:vertical-rl;transform:rotate(180deg);max-height:180px;overflow:hidden;text-overflow:ellipsis}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:12px;font-weight:600;background:var(--soft)}
.badge.overdue{background:#fce8e6;color:var(--leak)}.badge.due_soon{background:#fef7e0;color:var(--warn)}.badge.notified{background:#e6f4ea;color:var(--ok)}
.badge.notified.late{background:#fce8e6;color:var(--leak)}
.clockbar{height:10px;background:var(--soft);border-radius:5px;overflow:hidden;margin:8px 0;max-width:640px}
.clockbar svg{display:block}
ol.items li{margin:4px 0}
.ref{color:var(--muted);font-size:12px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
@media print{
  body{font-size:10pt}
  main{max-width:none;padding:0}
  nav,.tools,.noprint{display:none}
  h2{break-after:avoid}
  .chart,.cards,.verdict,figure{break-inside:avoid}
  .scroll{overflow:visible;max-height:none;border:0}
  .scroll thead th{position:static}
  tr{break-inside:avoid}
  a{color:inherit;text-decoration:none}
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
`

export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var table = document.getElementById('sightings-table');
  if (table && table.tBodies.length) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var search = document.getElementById('sightings-search');
    var shown = document.getElementById('sightings-shown');
    search.addEventListener('input', function () {
      var terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
      var n = 0;
      rows.forEach(function (r) {
        var text = r.textContent.toLowerCase();
        var hit = terms.every(function (t) { return text.indexOf(t) >= 0; });
        r.hidden = !hit;
        if (hit) n++;
      });
      shown.textContent = n.toLocaleString('en-US');
    });
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.querySelector('button').addEventListener('click', function () {
        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  var now = document.getElementById('clock-now');
  if (now) {
    var deadline = Date.parse(now.getAttribute('data-deadline'));
    var tick = function () {
      var s = Math.floor((deadline - Date.now()) / 1000), a = Math.abs(s);
      var text = Math.floor(a / 3600) + 'h ' + String(Math.floor((a % 3600) / 60)).padStart(2, '0') + 'm';
      now.textContent = s < 0 ? 'overdue by ' + text : text + ' left';
    };
    tick();
    setInterval(tick, 30000);
  }
})();
`
