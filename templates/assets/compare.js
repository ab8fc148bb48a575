/* The compare page: two evaluations (?a=ID&b=ID) task by task and overall (PRODUCT.md
   "Compare", SAMPLES.md section 5). Reads window.RB_COMPARE (data/compare/index.js) and
   loads each evaluation's data file with a <script> element, which works from disk.
   Figures the build computed (pairwise.json's paired entries) are used as they are; the rest
   is computed here by the same rules: the C_P difference on the shared items, exact McNemar
   (one trial per item) or the paired bootstrap, Holm over the page's paired tests. */
(function () {
  "use strict";
  var Z975 = 2.241402727604947, FLOOR = 0.01, ALPHA = 0.05;
  var ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";
  var index = window.RB_COMPARE;
  var result = document.getElementById("compare-result");
  if (!result) { return; }
  window.RB_COMPARE_EVALS = window.RB_COMPARE_EVALS || {};

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }
  function message(text) {
    var p = el("p", text, "note compare-message");
    p.setAttribute("role", "alert");
    result.appendChild(p);
  }
  function rootPath() {
    var script = document.querySelector("script[src*='data/compare/index.js']");
    return script ? script.getAttribute("src").replace(/data\/compare\/index\.js.*$/, "") : "";
  }

  /* ---- the board the overall score is on ---- */
  /* The board a "Compare" link names (?board=NAME, from a board page), else the first: its
     name (none when the site has one board), tasks, precomputed tests, and each side's
     standing on it ([rank, status, [center, low, high]]). */
  function chosenBoard(name) {
    var boards = index.boards || [];
    var k = -1;
    for (var i = 0; i < boards.length; i++) { if (boards[i][0] === name) { k = i; } }
    var unknown = Boolean(name) && k < 0;
    k = Math.max(k, 0);
    return {
      name: boards.length ? boards[k][0] : null, tasks: k ? boards[k][1] : index.board,
      tests: k ? ((index.paired.boards || {})[boards[k][0]] || []) : index.paired.board,
      standing: function (E) {
        if (!k) { return E.score; }
        var s = (E.boards || {})[boards[k][0]];
        return s ? s[2] : null;
      },
      unknown: unknown
    };
  }
  function boardWords(board) { return board.name ? "the “" + board.name + "” board's" : "the board's"; }

  /* ---- numbers as the site prints them ---- */
  function signed(v, digits) {
    var s = Math.abs(v).toFixed(digits);
    if (Number(s) === 0) { return "+" + s; }
    return (v < 0 ? "\u2212" : "+") + s;
  }
  function pText(p, method) {
    if (p === 0 && method === "bootstrap") { return "0 (no resample crossed zero)"; }
    if (p < 0.0001) { return "< 0.0001"; }
    if (p >= 1) { return "1"; }
    return p.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
  }
  function round(v, digits) { var f = Math.pow(10, digits); return Math.round(v * f) / f; }

  /* ---- per-item outcomes ---- */
  /* The item's character: its index in entry.p, `width` bits from `width * pos` of the
     base64 entry.o, most significant bit first (compareoutputs.packed). */
  function unpack(entry, size) {
    var bytes = atob(entry.o), width = 0, chars = new Array(size);
    while ((1 << width) < entry.p.length) { width += 1; }
    for (var pos = 0; pos < size; pos++) {
      var v = 0;
      for (var j = 0, bit = pos * width; j < width; j++, bit++) {
        v = (v << 1) | ((bytes.charCodeAt(bit >> 3) >> (7 - (bit & 7))) & 1);
      }
      chars[pos] = entry.p.charAt(v);
    }
    return chars;
  }
  function decode(entry, size) {
    var m = new Float64Array(size), e = new Float64Array(size), t = new Float64Array(size),
        g = new Float64Array(size), listed = 0, chars = unpack(entry, size);
    for (var pos = 0; pos < size; pos++) {
      var ch = chars[pos];
      if (ch === "~") { m[pos] = 1; t[pos] = 1; }
      else if (ch === "#") {
        // [trials, correct, truncated, k options] (guess sum (trials - truncated) / k, 0 for k = 0),
        // or [trials, correct, truncated, guess, 1].
        var x = entry.x[listed++];
        m[pos] = x[0]; e[pos] = x[1]; t[pos] = x[2];
        g[pos] = x.length > 4 ? x[3] : (x[3] > 0 ? (x[0] - x[2]) / x[3] : 0);
      } else if (ch !== ".") {
        var code = ALPHABET.indexOf(ch), k = code >> 1;
        m[pos] = 1; e[pos] = code & 1; g[pos] = k > 0 ? 1 / k : 0;
      }
    }
    return {m: m, e: e, t: t, g: g};
  }

  /* SAMPLES.md section 2: effective counters [n, n_t, n_e, g] of one stratum's feature sums. */
  function effective(f, clusters) {
    var n = f[0], e = f[1], t = f[2], g = f[3];
    var raw = [n, t, e, g];
    var mbar = n / clusters;
    if (clusters < 2) { return raw.map(function (v) { return v / mbar; }); }
    var deff = 0, varies = false;
    [[e, f[5], f[6]], [t, f[8], f[9]]].forEach(function (y) {
      var p = y[0] / n, vSrs = p * (1 - p) / n;
      if (vSrs > 0) {
        var vCluster = clusters / (clusters - 1) * (y[1] - 2 * p * y[2] + p * p * f[7]) / (n * n);
        var ratio = Math.min(Math.max(vCluster / vSrs, 1), mbar);
        deff = Math.max(deff, ratio);
        varies = true;
      }
    });
    if (!varies) { deff = mbar; }
    return raw.map(function (v) { return v / deff; });
  }
  function wilson(s, t) {
    if (!(t > 0)) { return 0.5; }
    var p = Math.min(Math.max(s, 0), t) / t, z2 = Z975 * Z975;
    return (p + z2 / (2 * t)) / (1 + z2 / t);
  }
  function cpCenter(c) {
    var nu = c[0] - c[1];
    return wilson(c[2] - c[3], nu - c[3]) * wilson(nu, c[0]);
  }

  /* Exact two-sided McNemar: min(1, 2 BinomCDF(min(b, c); b + c, 1/2)), correctly rounded. */
  function mcnemar(b, c) {
    var n = b + c, k = Math.min(b, c);
    if (n === 0) { return 1; }
    var term = BigInt(1), total = BigInt(1), N = BigInt(n);
    for (var i = 0; i < k; i++) {
      term = term * (N - BigInt(i)) / BigInt(i + 1);
      total += term;
    }
    var num = BigInt(2) * total, den = BigInt(1) << N;
    if (num >= den) { return 1; }
    // num / den with 64 extra bits and a sticky bit: one rounding, to the nearest double.
    var shift = BigInt(den.toString(2).length - num.toString(2).length + 64);
    var q = (num << shift) / den;
    if ((num << shift) % den !== BigInt(0)) { q = q | BigInt(1); }
    var value = Number(q), s = Number(shift);
    while (s > 0) { var step = Math.min(s, 1000); value = value / Math.pow(2, step); s -= step; }
    return value;
  }

  /* A seeded stream (mulberry32 from a string hash): the same pair gives the same draws. */
  function hash(text) {
    var h = 2166136261;
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function stream(seedText) {
    var a = hash(seedText);
    return function () {
      a = (a + 0x6D2B79F5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  /* An item's feature columns (resample.py): m, e, t, g, then, with epochs, x and the second
     moments the design effect needs; without epochs x is e and the counters are the sums. */
  function features(side, j, wide) {
    var m = side.m[j], e = side.e[j], t = side.t[j];
    return wide ? [m, e, t, side.g[j], e / m, e * e, e * m, m * m, t * t, t * m] : [m, e, t, side.g[j]];
  }
  function counters(sums, wide, clusters) {
    return wide ? effective(sums, clusters) : [sums[0], sums[2], sums[1], sums[3]];
  }
  function percentiles(values) {
    var sorted = Float64Array.from(values).sort(), b = sorted.length;
    return [sorted[Math.floor(0.025 * b)], sorted[Math.floor(0.975 * b)]];
  }
  function twoSided(values) {
    var below = 0, above = 0;
    values.forEach(function (v) { v = round(v, 9); if (v <= 0) { below++; } if (v >= 0) { above++; } });
    return Math.min(1, 2 * Math.min(below / values.length, above / values.length));
  }

  /* One task, paired on the shared items: observed C_P of both sides, McNemar's counts, and
     the bootstrap replicates of both sides' C_P and of the summed epoch means. */
  function pairedTask(task, layout, A, B, ids) {
    var draws = index.draws, start = 0, shared = 0, epochs = false, b = 0, c = 0;
    var obsA = [0, 0, 0, 0], obsB = [0, 0, 0, 0];
    var repA = [], repB = [], xA = new Float64Array(draws), xB = new Float64Array(draws);
    for (var r = 0; r < draws; r++) { repA.push([0, 0, 0, 0]); repB.push([0, 0, 0, 0]); }
    layout.forEach(function (stratum) {
      var size = stratum[1], items = [];
      for (var j = start; j < start + size; j++) {
        if (A.m[j] > 0 && B.m[j] > 0) {
          items.push(j);
          if (A.m[j] !== 1 || B.m[j] !== 1) { epochs = true; }
          if (A.e[j] > 0 && !(B.e[j] > 0)) { b++; }
          if (B.e[j] > 0 && !(A.e[j] > 0)) { c++; }
        }
      }
      start += size;
      var n = items.length;
      if (!n) { return; }
      shared += n;
      var wide = items.some(function (j) { return A.m[j] !== 1 || B.m[j] !== 1; }), K = wide ? 10 : 4;
      var fa = new Float64Array(n * K), fb = new Float64Array(n * K);
      items.forEach(function (j, i) { fa.set(features(A, j, wide), i * K); fb.set(features(B, j, wide), i * K); });
      var sa = new Float64Array(K), sb = new Float64Array(K), k;
      for (var i = 0; i < n * K; i++) { sa[i % K] += fa[i]; sb[i % K] += fb[i]; }
      add(obsA, counters(sa, wide, n));
      add(obsB, counters(sb, wide, n));
      var next = stream([index.seed, "paired", task, stratum[0], ids[0], ids[1]].join("\u0000"));
      for (var rep = 0; rep < draws; rep++) {
        sa.fill(0);
        sb.fill(0);
        for (var d = 0; d < n; d++) {
          var base = Math.min(n - 1, Math.floor(next() * n)) * K;
          for (k = 0; k < K; k++) { sa[k] += fa[base + k]; sb[k] += fb[base + k]; }
        }
        add(repA[rep], counters(sa, wide, n));
        add(repB[rep], counters(sb, wide, n));
        xA[rep] += wide ? sa[4] : sa[1];
        xB[rep] += wide ? sb[4] : sb[1];
      }
    });
    var cpA = repA.map(cpCenter), cpB = repB.map(cpCenter);
    return {shared: shared, epochs: epochs, b: b, c: c, obsA: cpCenter(obsA), obsB: cpCenter(obsB),
            cpA: cpA, cpB: cpB, xDiff: Array.prototype.map.call(xA, function (v, i) { return v - xB[i]; })};
  }
  function add(total, part) { for (var k = 0; k < 4; k++) { total[k] += part[k]; } }

  function taskTest(found) {
    var diff = found.cpA.map(function (v, i) { return v - found.cpB[i]; });
    var interval = percentiles(diff);
    var useMcnemar = !found.epochs;
    return {shared: found.shared, effect: round(found.obsA - found.obsB, 6), low: round(interval[0], 6),
            high: round(interval[1], 6), p: round(useMcnemar ? mcnemar(found.b, found.c) : twoSided(found.xDiff), 6),
            rawP: useMcnemar ? mcnemar(found.b, found.c) : twoSided(found.xDiff),
            method: useMcnemar ? "mcnemar" : "bootstrap", source: "browser", b: found.b, c: found.c};
  }
  function boardTest(found) {
    function score(pick, r) {
      var logs = 0;
      found.forEach(function (f) { logs += Math.log(Math.max(pick(f, r), FLOOR)); });
      return 1000 * Math.exp(logs / found.length);
    }
    var draws = index.draws, diff = [];
    for (var r = 0; r < draws; r++) {
      diff.push(score(function (f, i) { return f.cpA[i]; }, r) - score(function (f, i) { return f.cpB[i]; }, r));
    }
    var interval = percentiles(diff), shared = 0;
    found.forEach(function (f) { shared += f.shared; });
    var effect = score(function (f) { return f.obsA; }) - score(function (f) { return f.obsB; });
    var p = twoSided(diff);
    return {shared: shared, effect: round(effect, 3), low: round(interval[0], 3), high: round(interval[1], 3),
            p: round(p, 6), rawP: p, method: "bootstrap", source: "browser"};
  }
  /* The build's own test of the pair, oriented A minus B, or null. */
  function precomputed(list, a, b) {
    for (var i = 0; i < (list || []).length; i++) {
      var x = list[i];
      if (x[0] === a && x[1] === b) {
        return {shared: x[2], effect: x[3], low: x[4], high: x[5], p: x[6], rawP: x[6], method: x[7], source: "build"};
      }
      if (x[0] === b && x[1] === a) {
        return {shared: x[2], effect: -x[3], low: -x[5], high: -x[4], p: x[6], rawP: x[6], method: x[7], source: "build"};
      }
    }
    return null;
  }
  function holm(tests) {
    var order = tests.map(function (t, i) { return i; });
    order.sort(function (i, j) { return tests[i].rawP - tests[j].rawP || i - j; });
    for (var rank = 0; rank < order.length; rank++) {
      var t = tests[order[rank]];
      if (t.rawP > ALPHA / (order.length - rank)) { break; }
      t.significant = true;
    }
  }
  function overlap(x, y) { return !(x[1] > y[2] || y[1] > x[2]); }

  /* ---- the comparison ---- */
  function compare(a, b, chosen) {
    var A = window.RB_COMPARE_EVALS[a], B = window.RB_COMPARE_EVALS[b];
    var labelA = index.evaluations[a][1], labelB = index.evaluations[b][1];
    var board = chosen.tasks, tasks = board.slice();
    var scoreA = chosen.standing(A), scoreB = chosen.standing(B);
    Object.keys(A.tasks).concat(Object.keys(B.tasks)).sort().forEach(function (t) {
      if (tasks.indexOf(t) < 0) { tasks.push(t); }
    });
    var rows = [], paired = [];
    tasks.forEach(function (task) {
      var ta = A.tasks[task], tb = B.tasks[task];
      if (!ta && !tb) { return; }
      var row = {task: task, a: ta, b: tb, onBoard: board.indexOf(task) >= 0};
      rows.push(row);
      if (!ta || !tb) { return; }
      var layout = index.layouts[task], oa = (A.outcomes || {})[task], ob = (B.outcomes || {})[task];
      if (!index.published) { row.why = "per-sample outcomes are not published on this site"; }
      else if (!layout || !oa || !ob) {
        row.why = (!oa && !ob ? "neither has" : (!oa ? labelA : labelB) + " has no") + " per-sample outcomes on this task";
      } else {
        var size = layout.reduce(function (s, x) { return s + x[1]; }, 0);
        row.found = pairedTask(task, layout, decode(oa, size), decode(ob, size), [a, b].sort());
        row.shared = row.found.shared;
        if (row.found.shared >= index.min_samples) {
          row.browser = taskTest(row.found);
          row.test = precomputed((index.paired.tasks || {})[task], a, b) || row.browser;
          paired.push(row.test);
        } else {
          row.why = "they share " + row.found.shared + " item" + (row.found.shared === 1 ? "" : "s") +
            ", fewer than the " + index.min_samples + " a paired test needs";
        }
      }
    });
    var overall = {};
    var missingA = board.filter(function (t) { return !A.tasks[t]; }),
        missingB = board.filter(function (t) { return !B.tasks[t]; });
    if (missingA.length || missingB.length || !scoreA || !scoreB) {
      var had = function (missing, label) {
        return label + " has " + (board.length - missing.length) + " of them";
      };
      overall.none = boardWords(chosen) + " ReasonScore covers " + board.length + " task" + (board.length === 1 ? "" : "s") +
        (board.length <= 3 ? " (" + board.join(", ") + ")" : "") + ": " + had(missingA, labelA) + ", " +
        had(missingB, labelB);
      if (!missingA.length && !missingB.length) { overall.none = "a ReasonScore on " + boardWords(chosen).replace(/'s$/, "") + " is not recorded"; }
    } else {
      var boardRows = rows.filter(function (r) { return r.onBoard; });
      if (boardRows.every(function (r) { return r.test; })) {
        overall.browser = boardTest(boardRows.map(function (r) { return r.found; }));
        overall.test = precomputed(chosen.tests, a, b) || overall.browser;
        paired.push(overall.test);
      } else {
        var first = boardRows.filter(function (r) { return !r.test; })[0];
        overall.why = first.task + ": " + (first.why || "an interval is not recorded");
      }
    }
    holm(paired);
    render(a, b, labelA, labelB, [scoreA, scoreB], chosen, rows, overall, paired.length);
    window.RB_COMPARE_RESULT = {rows: rows.map(function (r) {
      return {task: r.task, shared: r.shared === undefined ? null : r.shared, test: r.test || null,
              browser: r.browser || null, why: r.why || null,
              shared_cp: r.found ? [r.found.obsA, r.found.obsB] : null};
    }), overall: overall};
  }

  function tripleText(t, digits) {
    var d = digits === undefined ? 3 : digits;
    return t ? t[0].toFixed(d) + " (95% " + t[1].toFixed(d) + " to " + t[2].toFixed(d) + ")" : "not recorded";
  }
  function pairedText(t, scale, labelA, labelB, family) {
    var digits = scale === "points" ? 1 : 3;
    var who = t.effect > 0 ? labelA : labelB;
    var verdict = t.significant ? who + " is higher" : "not distinguishable";
    return verdict + ": paired on " + t.shared.toLocaleString("en-US") + " shared items (" +
      (t.method === "mcnemar" ? "exact McNemar" : "paired bootstrap") + "), difference " + signed(t.effect, digits) +
      " (95% " + signed(t.low, digits) + " to " + signed(t.high, digits) + "), p = " + pText(t.p, t.method) + ", " +
      (t.significant ? "significant" : "not significant") + " after Holm's correction over the " + family +
      " paired test" + (family === 1 ? "" : "s") + " on this page; " +
      (t.source === "build" ? "figures from the build" : "computed in your browser");
  }
  function overlapText(x, y, labelA, labelB) {
    if (overlap(x, y)) { return "statistically tied: their 95% intervals overlap"; }
    return (x[0] > y[0] ? labelA : labelB) + " is higher: their 95% intervals do not overlap";
  }

  function render(a, b, labelA, labelB, scores, chosen, rows, overall, family) {
    var root = rootPath();
    var h = el("h2", "");
    [[a, labelA], [b, labelB]].forEach(function (x, k) {
      var link = el("a", x[1]);
      link.href = root + "models/" + index.evaluations[x[0]][0] + ".html";
      if (k) { h.appendChild(document.createTextNode(" and ")); }
      h.appendChild(link);
    });
    result.appendChild(h);
    var summary = el("p", "", "compare-overall");
    summary.id = "compare-overall";
    var on = "ReasonScore on " + boardWords(chosen) + " " + chosen.tasks.length + " task" +
      (chosen.tasks.length === 1 ? "" : "s");
    if (overall.none) {
      summary.textContent = "Overall: no comparison on " + boardWords(chosen) + " ReasonScore, because " + overall.none + ".";
    } else if (overall.test) {
      summary.textContent = "Overall (" + on + ", " +
        scores[0][0].toFixed(1) + " against " + scores[1][0].toFixed(1) + "): " +
        pairedText(overall.test, "points", labelA, labelB, family) + ".";
    } else {
      summary.textContent = "Overall (" + on + "): " + labelA + " " +
        tripleText(scores[0], 1) + ", " + labelB + " " +
        tripleText(scores[1], 1) + "; " + overlapText(scores[0], scores[1], labelA, labelB) +
        " (not paired: " + overall.why + ").";
    }
    result.appendChild(summary);
    var wrap = el("div", "", "table-wrap");
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-labelledby", "compare-caption");
    wrap.tabIndex = 0;
    var table = el("table", "", "compare-table stack");
    table.id = "compare-table";
    var caption = el("caption", "Task by task: each evaluation's " + index.mode +
      " estimate with its 95% interval, then how the two compare.");
    caption.id = "compare-caption";
    table.appendChild(caption);
    var head = el("thead"), tr = el("tr");
    ["Task", labelA, labelB, "Comparison"].forEach(function (text) {
      var th = el("th", text); th.scope = "col"; tr.appendChild(th);
    });
    head.appendChild(tr);
    table.appendChild(head);
    var body = el("tbody");
    rows.forEach(function (r) {
      var row = el("tr");
      row.setAttribute("data-task", r.task);
      var th = el("th", r.task); th.scope = "row"; row.appendChild(th);
      [[r.a, labelA], [r.b, labelB]].forEach(function (x) {
        var cell = el("td", x[0] ? tripleText(x[0].est) : "no result", "num");
        cell.setAttribute("data-label", x[1]);
        row.appendChild(cell);
      });
      var text;
      if (!r.a || !r.b) { text = "only " + (r.a ? labelA : labelB) + " has this task"; }
      else if (r.test) {
        text = pairedText(r.test, "rate", labelA, labelB, family) + " (C_P on the shared items: " +
          r.found.obsA.toFixed(3) + " against " + r.found.obsB.toFixed(3) + ")";
      }
      else if (!r.a.est || !r.b.est) { text = "not compared: an interval is not recorded"; }
      else {
        text = overlapText(r.a.est, r.b.est, labelA, labelB) + " (not paired: " + r.why + ")";
        [[r.a, labelA], [r.b, labelB]].forEach(function (x) {
          if (x[0].preliminary) {
            text += "; " + x[1] + "'s result is preliminary (" + x[0].samples + " sample" +
              (x[0].samples === 1 ? "" : "s") + ", fewer than " + index.min_samples + ")";
          }
        });
      }
      var td = el("td", text);
      td.setAttribute("data-label", "Comparison");
      td.setAttribute("data-rule", r.test ? "paired" : (r.a && r.b ? "overlap" : "none"));
      row.appendChild(td);
      body.appendChild(row);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    result.appendChild(wrap);
  }

  /* ---- the picker and the URL ---- */
  function fillPicker(a, b, chosen) {
    var form = document.getElementById("compare-pick");
    if (!form) { return; }
    var boardSelect = document.getElementById("compare-board");
    if (boardSelect && index.boards) {
      index.boards.forEach(function (board) {
        var option = el("option", board[0]);
        option.value = board[0];
        if (board[0] === chosen.name) { option.selected = true; }
        boardSelect.appendChild(option);
      });
      boardSelect.disabled = false;
      document.getElementById("compare-board-field").hidden = false;
    }
    var ids = Object.keys(index.evaluations).sort(function (x, y) {
      var lx = index.evaluations[x][1].toLowerCase(), ly = index.evaluations[y][1].toLowerCase();
      return lx < ly ? -1 : lx > ly ? 1 : (x < y ? -1 : 1);
    });
    ["compare-a", "compare-b"].forEach(function (name, k) {
      var select = document.getElementById(name), chosen = k ? b : a;
      ids.forEach(function (id) {
        var option = el("option", index.evaluations[id][1]);
        option.value = id;
        if (id === chosen) { option.selected = true; }
        select.appendChild(option);
      });
      if (!chosen && ids.length > k) { select.selectedIndex = k; }
    });
    form.hidden = false;
  }
  function load(id, done) {
    if (window.RB_COMPARE_EVALS[id]) { done(true); return; }
    var script = document.createElement("script");
    script.src = rootPath() + "data/compare/e/" + index.evaluations[id][0] + ".js";
    script.onload = function () { done(Boolean(window.RB_COMPARE_EVALS[id])); };
    script.onerror = function () { done(false); };
    document.head.appendChild(script);
  }

  if (!index) {
    message("The comparison data (data/compare/index.js) did not load, so nothing can be compared here.");
    return;
  }
  var query = new URLSearchParams(location.search);
  var a = query.get("a"), b = query.get("b"), chosen = chosenBoard(query.get("board"));
  fillPicker(a, b, chosen);
  if (chosen.unknown) {
    message("No board is named “" + query.get("board") + "”; the overall score below is " + boardWords(chosen) + ".");
  }
  if (a === null && b === null) {
    message("Choose two evaluations above, or tick two “Compare” boxes on the leaderboard.");
    return;
  }
  var unknown = [a, b].filter(function (id) { return id === null || id === "" || !Object.prototype.hasOwnProperty.call(index.evaluations, id); });
  if (unknown.length) {
    message(unknown.map(function (id) {
      return id ? "No evaluation has the ID “" + id + "”." : "The address names only one evaluation.";
    }).join(" ") + " IDs are the id fields of data/leaderboard.json (model|template|sampler); choose two evaluations above instead.");
    return;
  }
  if (a === b) {
    message("Both IDs name the same evaluation; choose two different ones above.");
    return;
  }
  var pending = 2, failed = [];
  [a, b].forEach(function (id) {
    load(id, function (ok) {
      if (!ok) { failed.push(id); }
      if (--pending) { return; }
      if (failed.length) {
        message("The data of " + failed.map(function (f) { return index.evaluations[f][1]; }).join(" and ") +
          " did not load (data/compare/e/), so the two cannot be compared here.");
        return;
      }
      compare(a, b, chosen);
    });
  });
}());
