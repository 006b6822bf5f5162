// SPDX-License-Identifier: MIT
/* report.js: the views of `gcacc report` (tools/gcacc/report_views.c
 * embeds this file in the page; it fetches nothing).  It reads the data
 * block the reader wrote (<script type="application/json"
 * id="gcacc-data">) and draws:
 *   Frames  allocations per frame as a stacked bar chart (bytes or
 *           objects, stacked by kind, exact, or by the top types), the
 *           heaviest frames, and for the frame or range chosen (a click,
 *           a drag, or a row of the heaviest frames) its kinds, top
 *           types and callsites (a dump without kind rows, written
 *           before them, stacks by type only);
 *   TopN    types or callsites by live, allocated or freed bytes, count
 *           or growth, sortable by any column and filtered by name;
 *   Why     the retention records' paths (drawn by the reader, in the
 *           page: only shown and hidden here), #view=why.
 * The state (view, selection, table, sort, filter) lives in the URL's
 * hash, so a view can be linked to: #view=frames&sel=120-180&stack=types,
 * #view=topn&table=sites&sort=alloc_bytes&q=Leak.  Long sessions stay
 * cheap: the reader sends at most a few thousand points (frames merged
 * into ranges), the chart draws one column per pixel at most, and tables
 * show their first rows only. */
(function () {
  'use strict';
  var T0 = performance.now();
  var el = document.getElementById('gcacc-data');
  if (!el) return;
  var D = JSON.parse(el.textContent);
  var EST = D.estimated ? '~' : '';
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f',
                 '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
  var OTHER_COLOR = '#bab0ac';
  var TOP_TYPES = 8, LIST_ROWS = 15, TABLE_ROWS = 200;

  function $(id) { return document.getElementById(id); }
  function size(b) {
    var a = Math.abs(b), s;
    if (a < 1024) s = a + ' B';
    else if (a < 1048576) s = (a / 1024).toFixed(1) + ' KiB';
    else if (a < 1073741824) s = (a / 1048576).toFixed(1) + ' MiB';
    else s = (a / 1073741824).toFixed(2) + ' GiB';
    return (b < 0 ? '\u2212' : '') + s;
  }
  function count(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function esize(b) { return EST + size(b); }
  function ecount(n) { return EST + count(n); }
  /* n samples and the relative error of their estimate, about          */
  /* 1/sqrt(n) (as gcacc top prints it); "-" for none.                   */
  function samples(n) {
    if (!(n > 0)) return '0 (-)';
    var e = 100 / Math.sqrt(n);
    return count(n) + ' (\u00b1' + e.toFixed(e >= 9.5 ? 0 : 1) + '%)';
  }
  function text(tag, s, cls) {
    var e = document.createElement(tag);
    if (s !== undefined) e.textContent = s;
    if (cls) e.className = cls;
    return e;
  }
  function typeName(id) {
    var n = D.tnames[id];
    if (n !== undefined) return n;
    return id === 0 ? '(no type)' : 'type ' + id;
  }
  function siteFrames(id) {
    if (id === 0) return ['(no stack)'];
    if (id === 1) return ['(not sampled)'];
    var s = D.sstacks[id];
    if (s === undefined) return ['site ' + id];
    return s.length ? s : ['(stack unknown)'];
  }
  function siteLabel(id, n) {
    var f = siteFrames(id);
    return f.slice(0, n).join(' < ') + (f.length > n ? ' < \u2026' : '');
  }
  /* A callsite cell: the innermost frames, the whole stack unfolding. */
  function siteCell(td, id) {
    var f = siteFrames(id);
    if (f.length <= 3) { td.textContent = f.join(' < '); return; }
    var d = document.createElement('details');
    d.appendChild(text('summary', siteLabel(id, 3)));
    var ol = document.createElement('ol');
    ol.className = 'stack';
    f.forEach(function (x) { ol.appendChild(text('li', x)); });
    d.appendChild(ol);
    td.appendChild(d);
  }

  /* ---- state in the hash ------------------------------------------ */
  var state = { view: 'overview', sel: null, metric: 'bytes', stack: '',
                table: 'types', sort: 'live_bytes', desc: true, q: '' };
  function readHash() {
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('='), k, v;
      if (i < 0) return;
      k = kv.slice(0, i);
      v = decodeURIComponent(kv.slice(i + 1));
      if (k === 'view' || k === 'table' || k === 'sort' || k === 'q'
          || k === 'metric' || k === 'stack') state[k] = v;
      else if (k === 'dir') state.desc = v !== 'asc';
      else if (k === 'sel') {
        var m = /^(\d+)(?:-(\d+))?$/.exec(v);
        if (m) state.sel = [+m[1], +(m[2] || m[1])];
      }
    });
  }
  function writeHash() {
    var h = 'view=' + state.view;
    if (state.view === 'frames') {
      if (state.sel) h += '&sel=' + state.sel[0] +
        (state.sel[1] !== state.sel[0] ? '-' + state.sel[1] : '');
      if (state.metric !== 'bytes') h += '&metric=' + state.metric;
      if (state.stack !== defaultStack()) h += '&stack=' + state.stack;
    } else if (state.view === 'topn') {
      h += '&table=' + state.table + '&sort=' + state.sort +
           (state.desc ? '' : '&dir=asc') +
           (state.q ? '&q=' + encodeURIComponent(state.q) : '');
    }
    if (history.replaceState) history.replaceState(null, '', '#' + h);
  }

  /* ---- tabs -------------------------------------------------------- */
  var VIEWS = ['overview', 'frames', 'topn', 'why'];
  function show(v) {
    if (VIEWS.indexOf(v) < 0) v = 'overview';
    state.view = v;
    VIEWS.forEach(function (w) {
      var s = $('view-' + w), t = $('tab-' + w);
      if (s) s.hidden = w !== v;
      if (t) t.setAttribute('aria-selected', w === v ? 'true' : 'false');
    });
    if (v === 'frames') drawChart();
    writeHash();
  }

  /* ---- Frames ------------------------------------------------------ */
  var F = D.frames, B = F.buckets, R = F.rows, H = F.heavy;
  var K = F.kinds || [], KS = F.kstacks || [];   /* [kind, name]; counts */
  var stackTypes = [];          /* the top types, in stacking order    */
  /* Per stacking ('kinds', 'types'): its layers ({name, color, key})  */
  /* and per bucket [bytes per layer..., objs per layer...].            */
  var layers = {}, stacks = {};
  var cols = null;              /* chart columns: bucket indices       */

  function defaultStack() { return K.length ? 'kinds' : 'types'; }
  /* A frame's totals: exact with kind rows, else the (estimated) rows'. */
  function tsize(b) { return K.length ? size(b) : esize(b); }
  function tcount(n) { return K.length ? count(n) : ecount(n); }

  function pairType(p) { return D.pairs[p][0]; }
  function pairSite(p) { return D.pairs[p][1]; }

  function prepareStacks() {
    var tot = {}, i, j, r, t, k = {};
    for (i = 0; i < R.length; i++)
      for (r = R[i], j = 0; j < r.length; j += 3) {
        t = pairType(r[j]);
        tot[t] = (tot[t] || 0) + r[j + 2];
      }
    stackTypes = Object.keys(tot).map(Number).sort(function (a, b) {
      return tot[b] - tot[a] || a - b;
    }).slice(0, TOP_TYPES);
    stackTypes.forEach(function (t, n) { k[t] = n; });
    var n = stackTypes.length + 1;
    stacks.types = new Array(B.length);
    for (i = 0; i < R.length; i++) {
      var s = new Float64Array(2 * n);
      for (r = R[i], j = 0; j < r.length; j += 3) {
        t = k[pairType(r[j])];
        if (t === undefined) t = n - 1;
        s[t] += r[j + 2];
        s[n + t] += r[j + 1];
      }
      stacks.types[i] = s;
    }
    layers.types = stackTypes.map(function (t, m) {
      return { name: typeName(t), color: PALETTE[m % PALETTE.length],
               attr: 'data-type', key: t };
    }).concat([{ name: 'other types', color: OTHER_COLOR, attr: 'data-type',
                 key: 'other' }]);
    /* By kind: the reader sends [objs..., bytes...] per bucket.       */
    n = K.length;
    layers.kinds = K.map(function (kn, m) {
      return { name: kn[1], color: PALETTE[m % PALETTE.length],
               attr: 'data-kind', key: kn[0] };
    });
    stacks.kinds = KS.map(function (c) {
      var s = new Float64Array(2 * n);
      for (j = 0; j < n; j++) { s[j] = c[n + j]; s[n + j] = c[j]; }
      return s;
    });
  }

  /* A tick step of 1, 2 or 5 times a power of ten (of 1024 for bytes, */
  /* so that labels read 256 KiB, not 262.1 KiB), about four a chart.   */
  function niceStep(range, bytes) {
    var unit = 1, raw, p = 1, m;
    if (bytes) while (unit < 1073741824 && range / 4 >= unit * 1024) unit *= 1024;
    raw = range / unit / 4;
    while (p * 10 <= raw) p *= 10;
    while (p > raw && p > 1e-9) p /= 10;
    m = raw / p;
    m = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    return Math.max(1, m * p * unit);
  }

  var CH = 260, ML = 70, MB = 26, MT = 8;
  function drawChart() {
    var cv = $('frame-chart');
    if (!cv || !B.length) return;
    var W = cv.clientWidth || 1100, dpr = window.devicePixelRatio || 1;
    cv.width = W * dpr;
    cv.height = CH * dpr;
    var g = cv.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, CH);
    var L = layers[state.stack], S = stacks[state.stack];
    var pw = W - ML - 8, n = L.length;
    var off = state.metric === 'objs' ? n : 0;
    /* A bucket's height: its layers' sum (by kind, the frame's total;  */
    /* by type, what its rows hold: estimates in a sampled dump).       */
    var tot = function (b) {
      var t = 0, s = S[b];
      for (var m = 0; m < n; m++) t += s[off + m];
      return t;
    };
    /* One column per bucket, or per pixel: a pixel shows its heaviest */
    /* bucket, so a spike is never averaged away.                       */
    var nc = Math.min(B.length, pw), i, c, ymax = 0, v, bv;
    cols = new Array(nc);
    for (c = 0; c < nc; c++) {
      var lo = Math.floor(c * B.length / nc);
      var hi = Math.max(lo + 1, Math.floor((c + 1) * B.length / nc)), best = lo;
      for (i = lo, bv = -1; i < hi; i++) {
        v = tot(i);
        if (v > bv) { bv = v; best = i; }
      }
      cols[c] = best;
      if (bv > ymax) ymax = bv;
    }
    if (ymax <= 0) ymax = 1;
    var ph = CH - MT - MB, bw = pw / nc;
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#333';
    g.strokeStyle = '#e6e6e6';
    var step = niceStep(ymax, state.metric !== 'objs');
    ymax = Math.ceil(ymax / step) * step;
    for (var yv = 0; yv <= ymax + step / 2; yv += step) {
      var y = MT + ph - ph * yv / ymax;
      g.beginPath(); g.moveTo(ML, y + 0.5); g.lineTo(W - 8, y + 0.5); g.stroke();
      g.textAlign = 'right';
      g.fillText(state.metric === 'objs' ? count(Math.round(yv)) : size(Math.round(yv)),
                 ML - 6, y + 4);
    }
    var sel = state.sel;
    for (c = 0; c < nc; c++) {
      var b = B[cols[c]], s = S[cols[c]], x = ML + c * bw, y0 = MT + ph;
      if (sel && b[1] >= sel[0] && b[0] <= sel[1]) {
        g.fillStyle = '#ffe08a';        /* at least 5 px: findable      */
        g.fillRect(x + bw / 2 - Math.max(bw, 5) / 2, MT, Math.max(bw, 5), ph);
      }
      for (var k = 0; k < n; k++) {
        var h = s[off + k] / ymax * ph;
        if (h <= 0) continue;
        g.fillStyle = L[k].color;
        g.fillRect(x, y0 - h, Math.max(bw - (bw > 3 ? 1 : 0), 1), h);
        y0 -= h;
      }
    }
    g.fillStyle = '#333';
    for (i = 0; i <= 5; i++) {
      var cc = Math.min(nc - 1, Math.floor(i * (nc - 1) / 5));
      g.textAlign = i === 0 ? 'left' : i === 5 ? 'right' : 'center';
      g.fillText('frame ' + B[cols[cc]][0],
                 i === 0 ? ML : i === 5 ? W - 8 : ML + cc * bw + bw / 2, CH - 8);
    }
    cv.setAttribute('data-columns', String(nc));
    cv.setAttribute('data-ymax', String(ymax));
    cv.setAttribute('data-stack', state.stack);
    cv.setAttribute('data-layers', String(n));
    legend();
  }

  function legend() {
    var ul = $('frame-legend');
    if (!ul) return;
    ul.textContent = '';
    ul.setAttribute('data-stack', state.stack);
    layers[state.stack].forEach(function (l) {
      var li = text('li', l.name, 'legend-item');
      li.setAttribute(l.attr, l.key);
      li.style.setProperty('--c', l.color);
      ul.appendChild(li);
    });
  }

  function colAt(ev) {
    var cv = $('frame-chart'), r = cv.getBoundingClientRect();
    var x = ev.clientX - r.left, pw = r.width - ML - 8;
    if (!cols || x < ML) return cols ? 0 : -1;
    return Math.min(cols.length - 1, Math.floor((x - ML) / (pw / cols.length)));
  }

  /* The rows of a selection: a heavy frame's own, else the buckets'.   */
  /* kinds: the selection's per-kind counts, [objs..., bytes...].      */
  function selRows(sel) {
    var out = [], i, j, info = { frames: 0, objs: 0, bytes: 0, lo: sel[0], hi: sel[1] };
    var kinds = new Array(2 * K.length).fill(0);
    if (sel[0] === sel[1]) {
      for (i = 0; i < H.length; i++)
        if (H[i][0] === sel[0]) {
          info.frames = 1; info.objs = H[i][3]; info.bytes = H[i][4];
          info.exact = true;
          return { rows: [H[i][5]], kinds: H[i][6] || kinds, info: info };
        }
    }
    for (i = 0; i < B.length; i++) {
      if (B[i][1] < sel[0] || B[i][0] > sel[1]) continue;
      out.push(R[i]);
      if (KS[i]) for (j = 0; j < kinds.length; j++) kinds[j] += KS[i][j];
      info.frames += B[i][2]; info.objs += B[i][3]; info.bytes += B[i][4];
      if (B[i][0] < info.lo) info.lo = B[i][0];
      if (B[i][1] > info.hi) info.hi = B[i][1];
    }
    info.exact = info.lo === sel[0] && info.hi === sel[1];
    return { rows: out, kinds: kinds, info: info };
  }

  /* The selection's allocations per kind (exact: the counters).       */
  function kindTable(kinds, total) {
    var t = $('frame-kinds');
    if (!t) return;
    var tb = t.tBodies[0], n = K.length;
    t.hidden = !n;
    tb.textContent = '';
    K.forEach(function (kn, m) {
      var tr = document.createElement('tr'), td = text('td', kn[1], 'l');
      tr.className = 'fk-row';
      tr.setAttribute('data-kind', kn[0]);
      tr.setAttribute('data-objs', kinds[m]);
      tr.setAttribute('data-bytes', kinds[n + m]);
      td.style.setProperty('--c', PALETTE[m % PALETTE.length]);
      tr.appendChild(td);
      tr.appendChild(text('td', size(kinds[n + m])));
      tr.appendChild(text('td', count(kinds[m])));
      tr.appendChild(text('td', total ? (100 * kinds[n + m] / total).toFixed(1) + '%' : ''));
      tb.appendChild(tr);
    });
  }

  function groupTable(id, rows, site, total) {
    var t = $(id), tb = t.tBodies[0], by = {}, i, j, r, k;
    for (i = 0; i < rows.length; i++)
      for (r = rows[i], j = 0; j < r.length; j += 3) {
        k = site ? pairSite(r[j]) : pairType(r[j]);
        if (!by[k]) by[k] = [0, 0];
        by[k][0] += r[j + 1];
        by[k][1] += r[j + 2];
      }
    var keys = Object.keys(by).map(Number).sort(function (a, b) {
      return by[b][1] - by[a][1] || a - b;
    });
    /* Estimates (sampled profile) can add up to more than the exact   */
    /* total: shares are then of their sum, so that no row reads as    */
    /* more than the whole, and the cell says so.                       */
    var sum = 0, whole = total, over = '';
    keys.forEach(function (k) { sum += by[k][1]; });
    if (EST && sum > total) {
      whole = sum;
      over = 'The estimates add up to ~' + size(sum) + ', ' +
        size(sum - total) + ' more than the selection\u2019s exact ' +
        size(total) + ' (sampling error): shares are of their sum.';
    }
    t.setAttribute('data-estimates-sum', sum);
    tb.textContent = '';
    keys.slice(0, LIST_ROWS).forEach(function (k) {
      var tr = document.createElement('tr'), td = text('td', '', 'l');
      tr.className = site ? 'fs-row' : 'ft-row';
      tr.setAttribute('data-id', k);
      tr.setAttribute('data-bytes', by[k][1]);
      tr.setAttribute('data-objs', by[k][0]);
      if (site) siteCell(td, k); else td.textContent = typeName(k);
      tr.appendChild(td);
      tr.appendChild(text('td', esize(by[k][1])));
      tr.appendChild(text('td', ecount(by[k][0])));
      var share = text('td', whole ? EST + (100 * by[k][1] / whole).toFixed(1) + '%' : '');
      if (over) share.title = over;
      tr.appendChild(share);
      tb.appendChild(tr);
    });
    t.setAttribute('data-rows', Math.min(keys.length, LIST_ROWS));
  }

  function select(sel) {
    if (!B.length) return;
    if (sel[0] > sel[1]) sel = [sel[1], sel[0]];
    state.sel = sel;
    var s = selRows(sel), inf = s.info, p = $('frame-sel');
    p.setAttribute('data-lo', inf.lo);
    p.setAttribute('data-hi', inf.hi);
    p.setAttribute('data-bytes', inf.bytes);
    p.setAttribute('data-objs', inf.objs);
    p.textContent = (inf.lo === inf.hi ? 'Frame ' + inf.lo
                     : 'Frames ' + inf.lo + '\u2013' + inf.hi) +
      ' (' + count(inf.frames) + (inf.frames === 1 ? ' frame' : ' frames') +
      '): ' + tsize(inf.bytes) + ' in ' + tcount(inf.objs) + ' objects' +
      (inf.exact ? '' : ' (whole points of the chart: ' + F.span +
                        ' frames each)') + '.';
    kindTable(s.kinds, inf.bytes);
    groupTable('frame-types', s.rows, false, inf.bytes);
    groupTable('frame-sites', s.rows, true, inf.bytes);
    drawChart();
    writeHash();
  }

  function heavyTable() {
    var tb = $('frame-heavy').tBodies[0];
    H.forEach(function (h) {
      var tr = document.createElement('tr');
      tr.className = 'heavy-row';
      tr.setAttribute('data-frame', h[0]);
      tr.setAttribute('data-bytes', h[4]);
      tr.appendChild(text('td', String(h[0])));
      tr.appendChild(text('td', String(h[1])));
      tr.appendChild(text('td', (h[2] / 1e6).toFixed(1) + ' ms'));
      tr.appendChild(text('td', tsize(h[4])));
      tr.appendChild(text('td', tcount(h[3])));
      tr.addEventListener('click', function () { select([h[0], h[0]]); });
      tb.appendChild(tr);
    });
  }

  function framesInit() {
    if ((state.stack !== 'kinds' && state.stack !== 'types')
        || (state.stack === 'kinds' && !K.length))
      state.stack = defaultStack();
    if (!$('frame-chart')) return;
    if (!B.length) {
      $('frame-sel').textContent = 'This dump has no frame records: the ' +
        'program marks no frames (GC_acc_frame).';
      return;
    }
    prepareStacks();
    var st = $('frame-stack');
    if (st) {
      if (!K.length) st.querySelector('option[value=kinds]').disabled = true;
      st.value = state.stack;
      st.addEventListener('change', function () {
        state.stack = this.value;
        drawChart();
        writeHash();
      });
    }
    heavyTable();
    var cv = $('frame-chart'), down = -1;
    cv.addEventListener('mousedown', function (ev) { down = colAt(ev); });
    cv.addEventListener('mouseup', function (ev) {
      var up = colAt(ev);
      if (down < 0 || up < 0) return;
      var a = B[cols[Math.min(down, up)]], b = B[cols[Math.max(down, up)]];
      select(down === up ? [a[0], a[1]] : [a[0], b[1]]);
      down = -1;
    });
    cv.addEventListener('mousemove', function (ev) {
      var c = colAt(ev);
      if (c < 0) return;
      var b = B[cols[c]];
      cv.title = (b[0] === b[1] ? 'frame ' + b[0] : 'frames ' + b[0] + '\u2013' + b[1]) +
        ': ' + tsize(b[4]) + ', ' + tcount(b[3]) + ' objects';
    });
    $('frame-metric').value = state.metric;
    $('frame-metric').addEventListener('change', function () {
      state.metric = this.value;
      drawChart();
      writeHash();
    });
    select(state.sel || (H.length ? [H[0][0], H[0][0]] : [B[0][0], B[0][1]]));
  }

  /* ---- TopN -------------------------------------------------------- */
  var TCOLS = D.topn.columns;     /* names of the numeric columns       */

  function topnRender() {
    var rows = D.topn[state.table] || [], q = state.q.toLowerCase();
    var ci = TCOLS.indexOf(state.sort), site = state.table === 'sites';
    if (ci < 0) { state.sort = 'live_bytes'; ci = TCOLS.indexOf('live_bytes'); }
    var label = function (r) {
      return site ? siteFrames(r[0]).join(' < ') : typeName(r[0]);
    };
    var shown = rows.filter(function (r) {
      return !q || label(r).toLowerCase().indexOf(q) >= 0;
    });
    shown.sort(function (a, b) {
      var d = a[ci + 1] - b[ci + 1];
      return (state.desc ? -d : d) || a[0] - b[0];
    });
    var t = $('topn-table'), tb = t.tBodies[0];
    tb.textContent = '';
    shown.slice(0, TABLE_ROWS).forEach(function (r) {
      var tr = document.createElement('tr'), td = text('td', '', 'l');
      tr.className = 'topn-row';
      tr.setAttribute('data-id', r[0]);
      TCOLS.forEach(function (c, i) { tr.setAttribute('data-' + c.replace(/_/g, '-'), r[i + 1]); });
      tr.appendChild(text('td', String(r[0])));
      if (site) siteCell(td, r[0]); else td.textContent = typeName(r[0]);
      tr.appendChild(td);
      TCOLS.forEach(function (c, i) {
        var v = r[i + 1], s = /^samples_/.test(c) ? samples(v)
          : /objs$/.test(c) ? ecount(v) : esize(v);
        if (c === 'growth_bytes' && v > 0) s = '+' + s;
        tr.appendChild(text('td', s, c === 'growth_bytes' ? (v > 0 ? 'pos' : v < 0 ? 'neg' : '') : ''));
      });
      tb.appendChild(tr);
    });
    t.setAttribute('data-rows', Math.min(shown.length, TABLE_ROWS));
    t.setAttribute('data-matching', shown.length);
    t.setAttribute('data-sort', state.sort);
    t.setAttribute('data-table', state.table);
    $('topn-label').textContent = site ? 'callsite (innermost first)' : 'type';
    $('topn-count').textContent = 'Showing ' + Math.min(shown.length, TABLE_ROWS) +
      ' of ' + shown.length + (q ? ' matching' : '') + ' ' +
      (site ? 'callsites' : 'types') + (rows.length >= D.topn.cap ?
      ' (the ' + D.topn.cap + ' largest kept in this report)' : '') + '.';
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th) {
      var k = th.getAttribute('data-key');
      th.setAttribute('aria-sort', k === state.sort ? (state.desc ? 'descending' : 'ascending') : 'none');
    });
    writeHash();
  }

  function topnInit() {
    var t = $('topn-table');
    if (!t) return;
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th) {
      var k = th.getAttribute('data-key');
      if (!k) return;
      th.addEventListener('click', function () {
        if (state.sort === k) state.desc = !state.desc;
        else { state.sort = k; state.desc = true; }
        topnRender();
      });
    });
    var sel = $('topn-kind'), f = $('topn-filter');
    if (state.table !== 'sites') state.table = 'types';
    sel.value = state.table;
    sel.addEventListener('change', function () { state.table = this.value; topnRender(); });
    f.value = state.q;
    f.addEventListener('input', function () { state.q = this.value; topnRender(); });
    topnRender();
  }

  readHash();
  VIEWS.forEach(function (v) {
    var t = $('tab-' + v);
    if (t) t.addEventListener('click', function () { show(v); });
  });
  document.documentElement.classList.add('js');
  framesInit();
  topnInit();
  show(state.view);
  /* For the browser test's timing: when the views were drawn (since   */
  /* navigation started) and how long this script took of that.        */
  document.documentElement.setAttribute('data-ready-ms',
    Math.round(performance.now()));
  document.documentElement.setAttribute('data-script-ms',
    Math.round(performance.now() - T0));
  window.addEventListener('resize', function () {
    if (state.view === 'frames') drawChart();
  });
}());
