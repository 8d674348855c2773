import { INVISIBLE_IN_JSON_SOURCE, NOT_PLAIN_SOURCE } from '../text/sanitize.js';

/**
 * The report's own stylesheet and script: constants, inlined into the file (it is opened from S3, a
 * file or a mail attachment, with no network). The script reads the findings from the JSON block and
 * only ever writes data through textContent / text nodes: never innerHTML.
 */

/** Severity colours: white text on each is at least 4.5:1, each is at least 3:1 on the page (WCAG AA). */
export const SEVERITY_COLOURS = {
  critical: '#8e1b1b',
  high: '#b23c00',
  medium: '#8a5a00',
  low: '#1f5f99',
  info: '#55606e',
} as const;

export const PAGE_COLOURS = {
  text: '#1a1a1a',
  muted: '#4a4a4a',
  background: '#ffffff',
  panel: '#f4f5f7',
  link: '#0b57d0',
  focus: '#0b57d0',
} as const;

export const REPORT_CSS = `
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:${PAGE_COLOURS.text};background:${PAGE_COLOURS.background}}
main,header.top{max-width:1280px;margin:0 auto;padding:0 20px}
header.top{padding-top:20px}
h1{font-size:1.6rem;margin:0 0 4px}
h2{font-size:1.25rem;margin:28px 0 10px;border-bottom:1px solid #c9ced6;padding-bottom:4px}
h3{font-size:1.05rem;margin:16px 0 6px}
.muted{color:${PAGE_COLOURS.muted}}
.warning{border:2px solid ${SEVERITY_COLOURS.high};background:#fff4ec;padding:10px 14px;margin:12px 0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px}
.card{background:${PAGE_COLOURS.panel};border:1px solid #c9ced6;border-radius:6px;padding:12px 14px}
.card .label{font-size:.85rem;color:${PAGE_COLOURS.muted};text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:1.9rem;font-weight:700;line-height:1.2}
.card .sub{font-size:.9rem;color:${PAGE_COLOURS.muted};overflow-wrap:anywhere}
.chips{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px;padding:0;list-style:none}
.sev{display:inline-block;border-radius:4px;padding:1px 7px;color:#fff;font-size:.8rem;font-weight:600;white-space:nowrap}
${Object.entries(SEVERITY_COLOURS)
  .map(([severity, colour]) => `.sev-${severity}{background:${colour}}.fill-${severity}{fill:${colour}}`)
  .join('\n')}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:20px}
figure{margin:0}
figcaption{font-weight:600;margin-bottom:6px}
svg text{font:11px system-ui,sans-serif;fill:${PAGE_COLOURS.text}}
svg .grid{stroke:#c9ced6;stroke-width:1}
svg .gap{fill:#fff;stroke:#767f8a;stroke-dasharray:3 3}
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0;padding:0;list-style:none;font-size:.85rem}
.legend .swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px;border-radius:2px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #dde1e6;vertical-align:top}
th{background:${PAGE_COLOURS.panel};font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;overflow-wrap:anywhere}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:8px 0 10px}
.filters label{display:flex;flex-direction:column;font-size:.85rem;color:${PAGE_COLOURS.muted}}
.filters input,.filters select,button{font:inherit;color:${PAGE_COLOURS.text};padding:5px 8px;border:1px solid #767f8a;border-radius:4px;background:#fff}
.filters input{min-width:260px}
button{cursor:pointer}
#findings tbody tr{cursor:pointer}
code.id{white-space:nowrap;overflow-wrap:normal}
#findings td:nth-child(9){min-width:16em}
#findings tbody tr:hover{background:#eef3fc}
:focus-visible{outline:3px solid ${PAGE_COLOURS.focus};outline-offset:2px}
#findings tbody tr:focus{outline:3px solid ${PAGE_COLOURS.focus};outline-offset:-3px;background:#eef3fc}
.scroll{overflow-x:auto}
dialog{max-width:min(1000px,96vw);width:96vw;border:1px solid #767f8a;border-radius:8px;padding:0;color:${PAGE_COLOURS.text}}
dialog::backdrop{background:rgba(0,0,0,.45)}
dialog .head{display:flex;justify-content:space-between;gap:12px;align-items:start;padding:14px 18px;border-bottom:1px solid #dde1e6;position:sticky;top:0;background:#fff}
dialog .head h2{margin:0;border:0;font-size:1.15rem;overflow-wrap:anywhere}
dialog .body{padding:4px 18px 18px}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:10px 0}
dl.meta dt{color:${PAGE_COLOURS.muted}}
dl.meta dd{margin:0;overflow-wrap:anywhere}
/* A step may hold a snippet (a Terraform block, the force-unlock command): its lines stay lines. */
.steps li{white-space:pre-wrap}
pre{background:${PAGE_COLOURS.panel};padding:8px 10px;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{max-width:1280px;margin:30px auto;padding:0 20px;font-size:.85rem;color:${PAGE_COLOURS.muted}}
@media print{
  body{font-size:10pt}
  .filters,.no-print,dialog .close{display:none!important}
  body:has(dialog[open])>main,body:has(dialog[open])>header.top,body:has(dialog[open])>footer{display:none}
  dialog[open]{position:static;display:block;width:auto;max-width:none;border:0;box-shadow:none}
  dialog::backdrop{background:none}
  .charts{grid-template-columns:1fr}
  .card,figure,tr{break-inside:avoid}
  thead{display:table-header-group}
  tr[hidden]{display:none}
  .sev{border:1px solid #000;print-color-adjust:exact;-webkit-print-color-adjust:exact}
  svg rect{print-color-adjust:exact;-webkit-print-color-adjust:exact}
}
`;

/**
 * Filters, search, keyboard navigation (roving tabindex over the visible rows: Tab reaches the table
 * once, arrows move, Enter or Space opens, Escape closes) and the detail dialog.
 */
export const REPORT_SCRIPT = `
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const meta = data.meta;
  // Unpacked as unpackReportJson in render-report.ts does: text columns index the strings table.
  const strings = data.strings;
  const text = (index) => strings[index];
  const decode = {
    text,
    number: (value) => value,
    json: (value) => value,
    remediation: (value) => ({ summary: text(value[0]), steps: value[1].map(text) }),
    history: (value) => value.map((entry) => ({ night: text(entry[0]), scanId: text(entry[1]), status: text(entry[2]), severity: text(entry[3]) })),
  };
  const findings = data.rows.map((row) => {
    const finding = {};
    data.columns.forEach(([name, type], column) => {
      if (row[column] !== null) finding[name] = decode[type](row[column]);
    });
    return finding;
  });
  const tbody = document.querySelector('#findings tbody');
  const indexById = new Map(findings.map((finding, index) => [finding.id, index]));
  const search = document.getElementById('search');
  const filters = Array.from(document.querySelectorAll('select[data-filter]'));
  const shownCount = document.getElementById('shown-count');
  const showMore = document.getElementById('show-more');
  const dialog = document.getElementById('detail');
  const dialogTitle = document.getElementById('detail-title');
  const dialogBody = document.getElementById('detail-body');
  const NONE = meta.none;
  const PAGE = meta.pageSize;
  const short = (id) => id.slice(0, meta.idLength);
  const haystacks = findings.map((f) =>
    [f.id, f.title, f.detail, f.workspace, f.owner, f.environment, f.kind, f.ruleId, f.resource, f.status, f.severity]
      .concat(f.drift ? f.drift.changes.map((c) => c.path) : [])
      .filter((part) => typeof part === 'string')
      .join('\\n')
      .toLowerCase(),
  );
  let matching = [];
  let listed = PAGE;

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  const sev = (severity) => el('span', 'sev sev-' + severity, severity);

  function rowFor(index) {
    const f = findings[index];
    const row = el('tr', null,
      el('td', null, el('code', 'id', short(f.id))),
      el('td', null, sev(f.severity)),
      el('td', null, f.status),
      el('td', null, f.kind),
      el('td', null, f.owner || ''),
      el('td', null, f.environment || ''),
      el('td', null, f.workspace),
      el('td', null, el('code', null, f.resource)),
      el('td', null, f.summary),
      el('td', 'num', String(f.ageDays)));
    row.dataset.i = String(index);
    row.tabIndex = -1;
    return row;
  }

  /** Lists the first rows of what matches (a page at a time: ten thousand rows would take seconds to lay out). */
  function listRows() {
    const rows = document.createDocumentFragment();
    for (const index of matching.slice(0, listed)) rows.append(rowFor(index));
    tbody.replaceChildren(rows);
    if (tbody.rows[0]) tbody.rows[0].tabIndex = 0;
    const more = matching.length - Math.min(listed, matching.length);
    shownCount.textContent = more > 0
      ? matching.length + ' of ' + findings.length + ' findings match; the first ' + listed + ' are listed'
      : matching.length + ' of ' + findings.length + ' findings shown';
    showMore.hidden = more === 0;
    showMore.textContent = 'List ' + Math.min(PAGE, more) + ' more';
  }

  function applyFilters() {
    const query = search.value.trim().toLowerCase();
    const active = filters.filter((select) => select.value !== '').map((select) => [select.dataset.filter, select.value]);
    matching = [];
    for (let index = 0; index < findings.length; index++) {
      const finding = findings[index];
      if (
        active.every(([field, value]) => (finding[field] === undefined ? NONE : finding[field]) === value) &&
        (query === '' || haystacks[index].includes(query))
      )
        matching.push(index);
    }
    listed = PAGE;
    listRows();
  }

  function focusRow(row) {
    for (const other of tbody.rows) if (other.tabIndex === 0) other.tabIndex = -1;
    row.tabIndex = 0;
    row.focus();
  }

  function moveFrom(row, key) {
    const rows = Array.from(tbody.rows);
    const at = rows.indexOf(row);
    const target =
      key === 'Home' ? rows[0]
      : key === 'End' ? rows[rows.length - 1]
      : key === 'ArrowDown' ? rows[Math.min(rows.length - 1, at + 1)]
      : rows[Math.max(0, at - 1)];
    if (target) focusRow(target);
  }

  // visibleValue (text/sanitize.ts): two values that differ never read the same.
  const NOT_PLAIN = new RegExp(${JSON.stringify(NOT_PLAIN_SOURCE)});
  const INVISIBLE_IN_JSON = new RegExp(${JSON.stringify(INVISIBLE_IN_JSON_SOURCE)}, 'g');
  const shown = (value) =>
    typeof value === 'string' && !NOT_PLAIN.test(value)
      ? value
      : JSON.stringify(value, null, 2).replace(INVISIBLE_IN_JSON, (char) => '\\\\u' + char.charCodeAt(0).toString(16).padStart(4, '0'));
  const section = (title, ...content) => [el('h3', null, title), ...content];
  const table = (headers, rowsOfCells) =>
    el('div', 'scroll', el('table', null,
      el('thead', null, el('tr', null, ...headers.map((header) => el('th', null, header)))),
      el('tbody', null, ...rowsOfCells.map((cells) => el('tr', null, ...cells.map((cell) => el('td', null, cell)))))));
  const quote = (word) => (/^[A-Za-z0-9_.:/@+=-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\\\''") + "'");

  function details(f) {
    const out = [];
    const metaList = el('dl', 'meta');
    const add = (label, value) => {
      if (value === undefined || value === null || value === '') return;
      metaList.append(el('dt', null, label), el('dd', null, value));
    };
    add('Finding id', el('code', null, f.id));
    add('Severity', sev(f.severity));
    add('Status', f.status);
    add('Kind', f.kind + ' (' + f.ruleId + ')');
    add('Resource', el('code', null, f.resource));
    add('Workspace', f.workspace);
    add('Owner', f.owner);
    add('Environment', f.environment);
    add('First seen', f.firstSeenAt);
    add('Last seen', f.lastSeenAt);
    add('Age', f.ageDays + ' days');
    add('Resolved', f.status === 'resolved' ? f.resolvedAt : undefined);
    if (f.suppression) add('Suppressed', 'until ' + f.suppression.until + ' by ' + f.suppression.by + ': ' + f.suppression.reason);
    out.push(metaList);
    if (f.detail) out.push(el('p', null, f.detail));
    if (f.drift && f.drift.changes.length > 0) {
      out.push(...section('Changes (' + f.drift.action + ')', table(['Attribute', 'Declared (before)', 'Live (after)'],
        f.drift.changes.map((c) => [el('code', null, c.path === '' ? '(whole value)' : c.path), el('pre', null, shown(c.before)), el('pre', null, shown(c.after) + (c.sensitive ? '  (sensitive: hash only)' : ''))]))));
    }
    const evidence = Object.keys(f.evidence || {});
    out.push(...section('Evidence', evidence.length ? el('pre', null, JSON.stringify(f.evidence, null, 2)) : el('p', 'muted', 'No evidence recorded.')));
    const history = f.history || [];
    out.push(...section('History (last ' + meta.nights + ' nights)', history.length
      ? table(['Night', 'Status', 'Severity', 'Scan'], history.map((h) => [h.night, h.status, h.severity, el('code', null, h.scanId)]))
      : el('p', 'muted', 'Not seen in the last ' + meta.nights + ' nights of history.')));
    const remediation = f.remediation || { summary: '', steps: [] };
    out.push(...section('Remediation', el('p', null, remediation.summary), el('ol', 'steps', ...remediation.steps.map((step) => el('li', null, step)))));
    const store = meta.store ? ' --store ' + quote(meta.store) : '';
    const commands = ['driftwatch findings show ' + short(f.id) + store];
    for (const mode of f.remediate || []) commands.push('driftwatch remediate ' + short(f.id) + ' --' + mode + store);
    out.push(...section('Commands', el('pre', 'commands', commands.join('\\n'))));
    return out;
  }

  let opener = null;
  function openDetails(index, from) {
    const finding = findings[index];
    opener = from;
    dialogTitle.textContent = short(finding.id) + ' · ' + finding.title;
    dialogBody.replaceChildren(...details(finding));
    dialog.showModal();
    dialog.querySelector('.close').focus();
  }

  dialog.addEventListener('close', () => {
    if (opener && opener.isConnected) opener.focus();
    opener = null;
  });
  dialog.querySelector('.close').addEventListener('click', () => dialog.close());
  tbody.addEventListener('click', (event) => {
    const row = event.target.closest('tr');
    if (!row) return;
    focusRow(row);
    openDetails(Number(row.dataset.i), row);
  });
  tbody.addEventListener('keydown', (event) => {
    const row = event.target.closest('tr');
    if (!row) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openDetails(Number(row.dataset.i), row);
    } else if (['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) {
      event.preventDefault();
      moveFrom(row, event.key);
    }
  });
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-open]');
    if (!button) return;
    const index = indexById.get(button.dataset.open);
    if (index !== undefined) openDetails(index, button);
  });
  showMore.addEventListener('click', () => {
    listed += PAGE;
    listRows();
  });
  search.addEventListener('input', applyFilters);
  for (const select of filters) select.addEventListener('change', applyFilters);
  document.getElementById('clear-filters').addEventListener('click', () => {
    search.value = '';
    for (const select of filters) select.value = '';
    applyFilters();
  });
  applyFilters();
  document.documentElement.dataset.ready = 'true';
})();
`;
