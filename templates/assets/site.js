/* reasonboard: table sorting and filtering, and chart drawing. Plain ES5-style script, no
   modules, no network. Every page reads fine without it: tables keep their built order and
   each chart has a table or text twin on the page. */
(function () {
  "use strict";
  var root = document.documentElement;
  root.className = root.className.replace(/\bno-js\b/, "") + " js";

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var raw = cell.getAttribute("data-sort");
    if (raw === null) { return cell.textContent.trim().toLowerCase(); }
    if (raw === "") { return null; }
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }

  function compare(a, b, descending) {
    // Missing values always sink to the bottom, whatever the direction.
    if (a === null || b === null) { return a === b ? 0 : (a === null ? 1 : -1); }
    var order = a < b ? -1 : (a > b ? 1 : 0);
    return descending ? -order : order;
  }

  // The direction a column sorts in on its first click: best first. The template says which
  // that is per column (data-sort-first): highest first for scores, lowest first for rank,
  // truncation and cost, A to Z for names. Without it, numbers sort highest first.
  function firstDirection(header) {
    var stated = header.getAttribute("data-sort-first");
    if (stated === "ascending" || stated === "descending") { return stated; }
    return /\bnum\b/.test(header.className) ? "descending" : "ascending";
  }

  // The reader's filters and sort live in the URL fragment ("#q=llama&family=family%3Allama
  // &sort=ReasonScore%3Adescending"), so a filtered view is a link, from file:// too (a
  // fragment needs no server). The pager's links carry it to the other pages.
  function readState() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      if (!part || part.indexOf("=") === -1) { return; }
      var at = part.indexOf("=");
      try {
        state[decodeURIComponent(part.slice(0, at))] = decodeURIComponent(part.slice(at + 1).replace(/\+/g, " "));
      } catch (e) { /* a malformed fragment is ignored */ }
    });
    return state;
  }

  var currentState = {};

  function writeState(changes) {
    Object.keys(changes).forEach(function (key) {
      if (changes[key]) { currentState[key] = changes[key]; } else { delete currentState[key]; }
    });
    var text = Object.keys(currentState).sort().map(function (key) {
      return encodeURIComponent(key) + "=" + encodeURIComponent(currentState[key]);
    }).join("&");
    var url = location.href.replace(/#.*$/, "") + (text ? "#" + text : "");
    if (history.replaceState) {
      try { history.replaceState(null, "", url); } catch (e) { /* some file:// pages refuse */ }
    }
    Array.prototype.forEach.call(document.querySelectorAll("nav.pager a"), function (a) {
      a.setAttribute("href", a.getAttribute("href").replace(/#.*$/, "") + (text ? "#" + text : ""));
    });
  }

  function sortTable(table, header, direction) {
    var descending = direction === "descending";
    var index = header.cellIndex;
    var headers = table.querySelectorAll("thead th");
    for (var h = 0; h < headers.length; h++) { headers[h].removeAttribute("aria-sort"); }
    header.setAttribute("aria-sort", direction);
    // Tie markers describe neighbours in rank order; they mean nothing in another order.
    var byRank = header.hasAttribute("data-rank-order") && direction === firstDirection(header);
    table.setAttribute("data-order", byRank ? "rank" : "custom");
    var bodies = table.tBodies;
    for (var b = 0; b < bodies.length; b++) {
      // Each body sorts on its own, so incomplete (unranked) models stay after ranked ones.
      var rows = Array.prototype.slice.call(bodies[b].querySelectorAll("tr[data-row]"));
      var keyed = rows.map(function (row, position) { return [cellValue(row, index), position, row]; });
      keyed.sort(function (x, y) { return compare(x[0], y[0], descending) || x[1] - y[1]; });
      keyed.forEach(function (entry) { bodies[b].appendChild(entry[2]); });
    }
    var select = table.sortSelect;
    if (select) { select.value = index + ":" + direction; }
    var change = {};
    change[sortKey(table)] = columnName(header) + ":" + direction;
    writeState(change);
  }

  // The leaderboard's and the matrix's order is "sort" in the URL; another table's is named
  // after its id, so a page with several tables restores each one's own.
  function sortKey(table) {
    return table.id === "leaderboard" || table.id === "matrix" ? "sort" : "sort-" + (table.id || "table");
  }

  function columnName(header) {
    return header.getAttribute("data-sort-name") || header.textContent.replace(/\s+/g, " ").trim();
  }

  function directionWords(header, direction) {
    if (!/\bnum\b/.test(header.className)) { return direction === "ascending" ? "A to Z" : "Z to A"; }
    return direction === "ascending" ? "lowest first" : "highest first";
  }

  // Card layout (narrow screens): the column headings are not shown, so a visible
  // "Sort by" menu offers every sortable column, best first and reversed. It works by touch
  // and by keyboard like any menu; CSS shows it only while the table is shown as cards.
  function addSortMenu(table, headers) {
    var wrap = table.parentNode && /\btable-wrap\b/.test(table.parentNode.className) ? table.parentNode : table;
    var box = document.createElement("div");
    box.className = "sort-control";
    var label = document.createElement("label");
    var select = document.createElement("select");
    select.id = (table.id || "table") + "-sort";
    label.htmlFor = select.id;
    label.textContent = "Sort by";
    var current = table.getAttribute("data-order") === "rank" ? table.querySelector("thead th[data-rank-order]") : null;
    var groups = [["Best first", 0], ["Reversed", 1]].map(function (spec) {
      var group = document.createElement("optgroup");
      group.label = spec[0];
      Array.prototype.forEach.call(headers, function (header) {
        var first = firstDirection(header);
        var direction = spec[1] === 0 ? first : (first === "ascending" ? "descending" : "ascending");
        var option = document.createElement("option");
        option.value = header.cellIndex + ":" + direction;
        option.textContent = columnName(header) + ", " + directionWords(header, direction);
        if (current === header && spec[1] === 0) { option.selected = true; }
        group.appendChild(option);
      });
      return group;
    });
    if (!current) {
      var none = document.createElement("option");
      none.value = "";
      none.textContent = "as listed";
      none.selected = true;
      select.appendChild(none);
    }
    groups.forEach(function (group) { select.appendChild(group); });
    select.addEventListener("change", function () {
      var parts = select.value.split(":");
      if (parts.length !== 2) { return; }
      var header = table.querySelector("thead tr").cells[Number(parts[0])];
      if (header) { sortTable(table, header, parts[1]); }
    });
    box.appendChild(label);
    box.appendChild(document.createTextNode(" "));
    box.appendChild(select);
    wrap.parentNode.insertBefore(box, wrap);
    table.sortSelect = select;
  }

  function setUpSorting(table) {
    var headers = table.querySelectorAll("thead th[data-sortable]");
    Array.prototype.forEach.call(headers, function (header) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      if (header.querySelector("a")) {
        // A heading that links elsewhere (a task's page) keeps its link; the sort button
        // beside it is named for the column (a control inside a link is not operable).
        button.setAttribute("aria-label", "Sort by " + columnName(header));
      } else {
        while (header.firstChild) { button.appendChild(header.firstChild); }
      }
      header.appendChild(button);
      button.addEventListener("click", function () {
        var now = header.getAttribute("aria-sort");
        var direction = now ? (now === "ascending" ? "descending" : "ascending") : firstDirection(header);
        sortTable(table, header, direction);
      });
    });
    if (/\bstack\b/.test(table.className) && headers.length) { addSortMenu(table, headers); }
  }

  function setUpFilter(form) {
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    var input = form.querySelector("input[type=search]");
    var status = form.querySelector("[data-filter-status]");
    var menus = Array.prototype.slice.call(form.querySelectorAll("select[data-facet]"));
    if (!table || !input) { return; }
    form.hidden = false;
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    function apply(record) {
      var needle = input.value.trim().toLowerCase();
      var chosen = menus.filter(function (m) { return m.value; }).map(function (m) { return "|" + m.value + "|"; });
      var rows = table.querySelectorAll("tr[data-row]");
      var shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var groups = row.getAttribute("data-groups") || "";
        var match = (!needle || (row.getAttribute("data-row") || "").indexOf(needle) !== -1) &&
          chosen.every(function (g) { return groups.indexOf(g) !== -1; });
        row.hidden = !match;
        if (match) { shown += 1; }
      });
      var filtered = needle || chosen.length;
      table.setAttribute("data-filtered", filtered ? "yes" : "no");
      if (status) { status.textContent = filtered ? shown + " of " + rows.length + " rows shown" : ""; }
      showElsewhere(form, needle);
      if (record) {
        var changes = { q: input.value.trim() };
        menus.forEach(function (m) { changes[m.name] = m.value; });
        writeState(changes);
      }
    }
    input.addEventListener("input", function () { apply(true); });
    menus.forEach(function (m) { m.addEventListener("change", function () { apply(true); }); });
    // A view restored from the URL: the same filters, applied before the reader sees the rows
    // (on load, and when the fragment changes: a link to another view of this page).
    function restore() {
      var state = currentState;
      input.value = state.q || "";
      menus.forEach(function (m) {
        var wanted = state[m.name] || "";
        var known = Array.prototype.some.call(m.options, function (o) { return o.value === wanted; });
        m.value = known ? wanted : "";
      });
      apply(false);
    }
    restorers.push(restore);
    if (Object.keys(currentState).length) { restore(); }
  }

  var restorers = [];

  function restoreSort(table) {
    var wanted = currentState[sortKey(table)];
    if (!wanted) { return; }
    var at = wanted.lastIndexOf(":");
    var name = wanted.slice(0, at);
    var direction = wanted.slice(at + 1);
    if (direction !== "ascending" && direction !== "descending") { return; }
    var headers = table.querySelectorAll("thead th[data-sortable]");
    for (var h = 0; h < headers.length; h++) {
      if (columnName(headers[h]) === name) { sortTable(table, headers[h], direction); return; }
    }
  }

  // Matches on the other pages of a paginated leaderboard, from the search index
  // (assets/search-*.js, a classic script: fetch() of JSON fails under file://). The index
  // lists [label, id, slug] by label and nothing a score decides, so a match links to the
  // model's page (which links to the index page holding its row); the models on this page
  // are the ones its table links to.
  var ELSEWHERE_LIMIT = 50;

  function modelHref(index, slug) {
    // A slug is "model" or "model/evaluation": encode each part, keep the slash.
    return index.prefix + slug.split("/").map(encodeURIComponent).join("/") + index.suffix;
  }

  function showElsewhere(form, needle) {
    var box = form.parentNode.querySelector("[data-filter-elsewhere]");
    var index = window.RB_SEARCH;
    if (!box) { return; }
    while (box.firstChild) { box.removeChild(box.firstChild); }
    box.hidden = true;
    if (!needle || !index) { return; }
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    var here = {};
    Array.prototype.forEach.call(table ? table.querySelectorAll("tr[data-row] th a") : [], function (a) {
      here[a.getAttribute("href")] = true;
    });
    var found = [];
    var total = 0;
    for (var i = 0; i < index.models.length; i += 1) {
      var m = index.models[i];
      if ((m[0] + " " + m[1]).toLowerCase().indexOf(needle) === -1) { continue; }
      if (Object.prototype.hasOwnProperty.call(here, modelHref(index, m[2]))) { continue; }
      total += 1;
      if (found.length < ELSEWHERE_LIMIT) { found.push(m); }
    }
    var heading = document.createElement("p");
    heading.textContent = total ? total + " more on other pages" + (total > found.length ? " (first " + found.length + " listed)" : "") + ":"
                                : "No matches on other pages.";
    box.appendChild(heading);
    if (found.length) {
      var list = document.createElement("ul");
      found.forEach(function (m) {
        var item = document.createElement("li");
        var link = document.createElement("a");
        link.href = modelHref(index, m[2]);
        link.textContent = m[0];
        item.appendChild(link);
        if (m[1] !== m[0]) {
          var id = document.createElement("span");
          id.className = "meta";
          id.textContent = " " + m[1];
          item.appendChild(id);
        }
        list.appendChild(item);
      });
      box.appendChild(list);
    }
    box.hidden = false;
  }

  // A chart as wide as its container and one step tall per row: Vega-Lite cannot fit a
  // width while the height is given in steps without logging 'WARN Dropping "fit-y"' on
  // every page (it warns even for autosize "fit-x"), so the height becomes a number here,
  // the step times the rows on the y axis, which is the height the step would give.
  function fixStepHeight(spec) {
    if (!spec.height || typeof spec.height.step !== "number") { return; }
    var encoding = spec.encoding || (spec.layer && spec.layer[0] && spec.layer[0].encoding) || {};
    var field = encoding.y && encoding.y.field;
    if (!field) { return; }
    var seen = {};
    var count = 0;
    spec.datasets.rows.forEach(function (row) {
      var key = String(row[field]);
      if (!Object.prototype.hasOwnProperty.call(seen, key)) { seen[key] = true; count += 1; }
    });
    spec.height = spec.height.step * Math.max(count, 1);
  }

  // A chart's rows, written by column (charts.columns): {keys: [...], rows: [[...], ...]}.
  function chartRows(data) {
    return data.rows.map(function (values) {
      var row = {};
      data.keys.forEach(function (key, i) { if (values[i] !== null) { row[key] = values[i]; } });
      return row;
    });
  }

  // Charts whose numbers are their twin table's (figure data-from="table id"): one reader
  // per kind turns the table's rows, as the reader sees them, into the chart's rows, so the
  // page holds each number once and the chart cannot disagree with its table. Read before
  // any table is sorted, in the order the page was built.
  function numbersIn(text) {
    var found = text.replace(/\u2212/g, "-").match(/-?\d[\d,]*(?:\.\d+)?/g) || [];
    return found.map(function (s) { return Number(s.replace(/,/g, "")); });
  }

  function bodyRows(table) {
    var rows = [];
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) { rows.push(row); });
    });
    return rows;
  }

  function dataCells(row) {
    return Array.prototype.filter.call(row.cells, function (cell) { return cell.tagName === "TD"; });
  }

  function rowName(row) {
    var head = row.querySelector("th");
    return head ? head.textContent.replace(/\s+/g, " ").trim() : "";
  }

  var TWIN_READERS = {
    // A table with one written interval per row (`center ± margin` and `[low, high]`).
    "forest-probability": function (table) {
      var out = [];
      bodyRows(table).forEach(function (row) {
        var text = row.querySelector(".iv-text");
        var range = row.querySelector(".iv-range");
        var ends = range ? numbersIn(range.textContent) : [];
        if (!text || ends.length !== 2) { return; }
        out.push({ label: rowName(row), order: out.length, center: numbersIn(text.textContent)[0],
                   low: ends[0], high: ends[1], text: text.textContent, hollow: false });
      });
      return out;
    },
    // Task, outcome, trials, "median (q1–q3)" of bits per token, compressed bytes.
    "compression": function (table) {
      var out = [];
      bodyRows(table).forEach(function (row) {
        var cells = dataCells(row);
        var bits = cells.length > 2 ? numbersIn(cells[2].textContent) : [];
        if (bits.length !== 3) { return; }
        var outcome = cells[0].textContent.trim();
        out.push({ label: rowName(row) + " \u00b7 " + outcome, order: out.length, outcome: outcome,
                   median: bits[0], q1: bits[1], q3: bits[2] });
      });
      return out;
    },
    // A series per row (the first data-series of them), a bin per column: "h [low, high]".
    "hazard": function (table, figure) {
      var bins = Array.prototype.slice.call(table.tHead.rows[0].cells, 1).map(function (cell) {
        return cell.textContent.trim();
      });
      var limit = Number(figure.getAttribute("data-series")) || Infinity;
      var out = [];
      bodyRows(table).slice(0, limit).forEach(function (row, series) {
        dataCells(row).forEach(function (cell, n) {
          var values = numbersIn(cell.textContent);
          if (values.length !== 3) { return; }
          out.push({ series: rowName(row), series_order: series, bin: bins[n], bin_order: n,
                     hazard: values[0], low: values[1], high: values[2] });
        });
      });
      return out;
    },
    // Budget, tokens (or "per task"), "score ± margin", then the tasks.
    "budget": function (table) {
      var out = [];
      bodyRows(table).forEach(function (row) {
        var cells = dataCells(row);
        var score = cells.length > 1 ? numbersIn(cells[1].textContent) : [];
        if (score.length !== 2) { return; }
        var tokens = cells[0].textContent.trim();
        var name = rowName(row);
        out.push({ budget: numbersIn(tokens).length ? name + " (" + tokens + ")" : name, order: out.length,
                   center: score[0], low: score[0] - score[1], high: score[0] + score[1],
                   text: cells[1].textContent.trim() });
      });
      return out;
    }
  };

  function readChartRows() {
    Array.prototype.forEach.call(document.querySelectorAll("figure[data-chart]"), function (figure) {
      var twin = figure.getAttribute("data-from");
      var data = figure.querySelector("script.chart-data");
      var reader = TWIN_READERS[figure.getAttribute("data-chart")];
      var table = twin ? document.getElementById(twin) : null;
      if (twin) {
        figure.rbRows = reader && table && table.tBodies ? reader(table, figure) : null;
      } else if (data) {
        figure.rbRows = chartRows(JSON.parse(data.textContent));
      }
    });
  }

  function drawCharts() {
    var figures = document.querySelectorAll("figure[data-chart]");
    if (!figures.length) { return; }
    if (typeof window.vegaEmbed !== "function" || !window.RB_CHART_SPECS) {
      // Say so rather than leave empty boxes: the tables still hold every number.
      Array.prototype.forEach.call(figures, function (figure) { figure.className += " failed"; });
      console.error("reasonboard: the local chart library did not load");
      return;
    }
    Array.prototype.forEach.call(figures, function (figure) {
      var kind = figure.getAttribute("data-chart");
      var template = window.RB_CHART_SPECS[kind];
      var target = figure.querySelector(".chart-canvas");
      if (!template || !target) { return; }
      if (!figure.rbRows) {
        figure.className += " failed";
        console.error("reasonboard: chart " + figure.id + " found no rows in its table");
        return;
      }
      var spec = JSON.parse(JSON.stringify(template));
      spec.datasets = { rows: JSON.parse(JSON.stringify(figure.rbRows)) };
      fixStepHeight(spec);
      // Long model names: give axis labels at most 40% of the width the chart really has.
      var width = target.clientWidth || 600;
      spec.config = spec.config || {};
      spec.config.axisY = spec.config.axisY || {};
      spec.config.axisY.labelLimit = Math.max(80, Math.min(320, Math.round(width * 0.4)));
      window.vegaEmbed(target, spec, { mode: "vega-lite", renderer: "svg", actions: false })
        .then(function () {
          // Wider than the page (the win-rate matrix on a phone): it scrolls in its box, which
          // then takes keyboard focus so it can be scrolled without a pointer.
          if (target.scrollWidth > target.clientWidth + 1) { target.tabIndex = 0; }
          figure.className += " drawn";
        })
        ["catch"](function (error) { figure.className += " failed"; if (window.console) { console.error(error); } });
    });
  }

  // "Compare" boxes on the rows of a leaderboard or the matrix: ticking two makes the link
  // to the compare page (compare.html?a=ID&b=ID); a third tick replaces the oldest.
  function setUpCompare(bar) {
    var cells = document.querySelectorAll("[data-compare-id]");
    if (!cells.length) { return; }
    var chosen = [];
    var intro = document.createElement("span");
    intro.textContent = "Tick “Compare” on two rows to see them side by side, task by task. ";
    var status = document.createElement("span");
    status.setAttribute("aria-live", "polite");
    var link = document.createElement("a");
    link.className = "compare-link";
    link.hidden = true;
    bar.appendChild(intro);
    bar.appendChild(status);
    bar.appendChild(document.createTextNode(" "));
    bar.appendChild(link);
    var boxes = [];
    function update() {
      boxes.forEach(function (box) { box.checked = chosen.indexOf(box) !== -1; });
      var names = chosen.map(function (box) { return box.getAttribute("data-label"); });
      if (chosen.length === 2) {
        var board = bar.getAttribute("data-compare-board");
        link.href = bar.getAttribute("data-compare-href") + "?a=" + encodeURIComponent(chosen[0].value) +
          "&b=" + encodeURIComponent(chosen[1].value) + (board ? "&board=" + encodeURIComponent(board) : "");
        link.textContent = "Compare " + names[0] + " with " + names[1];
        link.hidden = false;
        status.textContent = "";
      } else {
        link.removeAttribute("href");
        link.hidden = true;
        status.textContent = chosen.length ? "Chosen: " + names[0] + "; tick one more." : "";
      }
    }
    Array.prototype.forEach.call(cells, function (cell) {
      if (cell.getAttribute("data-sort") === null) { cell.setAttribute("data-sort", cell.textContent.trim()); }
      var label = document.createElement("label");
      label.className = "compare-tick";
      var box = document.createElement("input");
      box.type = "checkbox";
      box.value = cell.getAttribute("data-compare-id");
      box.setAttribute("data-label", cell.getAttribute("data-compare-label"));
      var hidden = document.createElement("span");
      hidden.className = "visually-hidden";
      hidden.textContent = " " + cell.getAttribute("data-compare-label");
      label.appendChild(box);
      label.appendChild(document.createTextNode(" Compare"));
      label.appendChild(hidden);
      box.addEventListener("change", function () {
        var at = chosen.indexOf(box);
        if (at !== -1) { chosen.splice(at, 1); }
        if (box.checked) { chosen.push(box); }
        if (chosen.length > 2) { chosen.shift(); }
        update();
      });
      boxes.push(box);
      var holder = document.createElement("div");
      holder.appendChild(label);
      cell.appendChild(holder);
    });
    bar.hidden = false;
  }

  // A result row's badge names its sentence in the key under its table (aria-describedby,
  // which screen readers read with the badge); on hover or focus it shows that sentence as
  // the other badges do (style.css `.badge-text`), copied from the key when first wanted.
  function showBadgeSentence(event) {
    var badge = event.target;
    while (badge && badge.nodeType === 1 && !(badge.tagName === "LI" && badge.hasAttribute("aria-describedby"))) {
      badge = badge.parentNode;
    }
    if (!badge || badge.nodeType !== 1 || badge.querySelector(".badge-text")) { return; }
    var note = document.getElementById(badge.getAttribute("aria-describedby"));
    var sentence = note && note.querySelector(".badge-sentence");
    if (!sentence) { return; }
    var tip = document.createElement("span");
    tip.className = "badge-text";
    tip.setAttribute("aria-hidden", "true");
    tip.textContent = sentence.textContent;
    badge.appendChild(tip);
  }

  function start() {
    readChartRows();
    currentState = readState();
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), setUpSorting);
    Array.prototype.forEach.call(document.querySelectorAll("form[data-filter-for]"), setUpFilter);
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), function (table) {
      restorers.push(function () { restoreSort(table); });
      restoreSort(table);
    });
    if (Object.keys(currentState).length) { writeState({}); }
    window.addEventListener("hashchange", function () {
      // A fragment naming a row ("#m-...") is an anchor, not a view: left alone.
      var state = readState();
      if (!Object.keys(state).length && !Object.keys(currentState).length) { return; }
      currentState = state;
      restorers.forEach(function (restore) { restore(); });
      writeState({});
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-compare-bar]"), setUpCompare);
    document.addEventListener("mouseover", showBadgeSentence);
    document.addEventListener("focusin", showBadgeSentence);
    drawCharts();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
