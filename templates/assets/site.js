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

  function sortTable(table, header, index) {
    var descending = header.getAttribute("aria-sort") === "ascending";
    var headers = table.querySelectorAll("thead th");
    for (var h = 0; h < headers.length; h++) { headers[h].removeAttribute("aria-sort"); }
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    // Tie markers describe neighbours in rank order; they mean nothing in another order.
    var byRank = header.hasAttribute("data-rank-order") && !descending;
    table.setAttribute("data-order", byRank ? "rank" : "custom");
    var bodies = table.tBodies;
    for (var b = 0; b < bodies.length; b++) {
      // Each body sorts on its own, so incomplete (unranked) models stay after ranked ones.
      var rows = Array.prototype.slice.call(bodies[b].querySelectorAll("tr[data-row]"));
      var keyed = rows.map(function (row, position) { return [cellValue(row, index), position, row]; });
      keyed.sort(function (x, y) { return compare(x[0], y[0], descending) || x[1] - y[1]; });
      keyed.forEach(function (entry) { bodies[b].appendChild(entry[2]); });
    }
  }

  function setUpSorting(table) {
    var headers = table.querySelectorAll("thead th[data-sortable]");
    Array.prototype.forEach.call(headers, function (header) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (header.firstChild) { button.appendChild(header.firstChild); }
      header.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, header, header.cellIndex); });
    });
  }

  function setUpFilter(form) {
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    var input = form.querySelector("input[type=search]");
    var status = form.querySelector("[data-filter-status]");
    if (!table || !input) { return; }
    form.hidden = false;
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    input.addEventListener("input", function () {
      var needle = input.value.trim().toLowerCase();
      var rows = table.querySelectorAll("tr[data-row]");
      var shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var match = !needle || (row.getAttribute("data-row") || "").indexOf(needle) !== -1;
        row.hidden = !match;
        if (match) { shown += 1; }
      });
      table.setAttribute("data-filtered", needle ? "yes" : "no");
      if (status) { status.textContent = shown + " of " + rows.length + " rows shown"; }
      showElsewhere(form, needle);
    });
  }

  // Matches on the other pages of a paginated leaderboard, from the search index
  // (assets/search-*.js, a classic script: fetch() of JSON fails under file://).
  var ELSEWHERE_LIMIT = 50;

  function showElsewhere(form, needle) {
    var box = form.parentNode.querySelector("[data-filter-elsewhere]");
    var index = window.RB_SEARCH;
    if (!box) { return; }
    while (box.firstChild) { box.removeChild(box.firstChild); }
    box.hidden = true;
    if (!needle || !index) { return; }
    var here = (window.location.pathname.split("/").pop() || "index.html");
    var current = index.pages.indexOf(here);
    var found = [];
    var total = 0;
    for (var i = 0; i < index.models.length; i += 1) {
      var m = index.models[i];
      if (m[3] === current) { continue; }
      if ((m[0] + " " + m[1]).toLowerCase().indexOf(needle) === -1) { continue; }
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
        // A slug is "model" or "model/evaluation": encode each part, keep the slash.
        link.href = index.prefix + m[2].split("/").map(encodeURIComponent).join("/") + index.suffix;
        link.textContent = m[0];
        var page = document.createElement("a");
        page.href = index.pages[m[3]];
        page.className = "meta";
        page.textContent = "page " + (m[3] + 1);
        item.appendChild(link);
        item.appendChild(document.createTextNode(" · "));
        item.appendChild(page);
        list.appendChild(item);
      });
      box.appendChild(list);
    }
    box.hidden = false;
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
      var data = figure.querySelector("script.chart-data");
      var target = figure.querySelector(".chart-canvas");
      if (!template || !data || !target) { return; }
      var spec = JSON.parse(JSON.stringify(template));
      spec.datasets = { rows: JSON.parse(data.textContent) };
      // Long model names: give axis labels at most 40% of the width the chart really has.
      var width = target.clientWidth || 600;
      spec.config = spec.config || {};
      spec.config.axisY = spec.config.axisY || {};
      spec.config.axisY.labelLimit = Math.max(80, Math.min(320, Math.round(width * 0.4)));
      window.vegaEmbed(target, spec, { mode: "vega-lite", renderer: "svg", actions: false })
        .then(function () { figure.className += " drawn"; })
        ["catch"](function (error) { figure.className += " failed"; if (window.console) { console.error(error); } });
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), setUpSorting);
    Array.prototype.forEach.call(document.querySelectorAll("form[data-filter-for]"), setUpFilter);
    drawCharts();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
