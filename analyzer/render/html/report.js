/* SPDX-License-Identifier: MIT */
// The HTML report's page: builds the report from the two JSON blocks that
// accwatch-report wrote into the page (the accwatch-report/1 document and
// the plots' data), and draws the plots with Chart.js. Runs offline.
"use strict";
(function () {
  const report = JSON.parse(document.getElementById("accwatch-report").textContent);
  const plots = JSON.parse(document.getElementById("accwatch-plots").textContent);
  const root = document.getElementById("report");
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  function header() {
    const s = report.summary;
    const world = report.world_size === null ? "unknown" : report.world_size;
    root.append(
      el("h1", { text: "accwatch report" }),
      el("p", { class: "summary", text:
        `${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}, ` +
        `${plural(s.infos, "note")}` +
        (s.suppressed ? `, ${s.suppressed} suppressed` : "") +
        `; world size ${world}, ` +
        `${plural(report.ranks.length, "rank")} traced, ` +
        `${plural(report.loaders.length, "loader")}; ` +
        `${report.trace.events} events` +
        (report.trace.discarded_events ? `, ${report.trace.discarded_events} lost` : "") +
        `; accwatch-report ${report.version}` }));
  }

  // One finding; a suppressed one is marked, not coloured by its severity.
  function finding(f) {
    const where = [];
    if (f.loader) where.push(el("a", { href: `#loader-${f.loader}`, text: f.loader }));
    if (f.epoch !== null) where.push(` epoch ${f.epoch}`);
    if (f.ranks.length) where.push(` ranks ${f.ranks.join(",")}`);
    const item = el("li", { class: f.suppressed ? "finding suppressed" : `finding ${f.severity}`,
                            "data-id": f.id, "data-loader": f.loader },
      el("span", { class: "severity", text: f.suppressed ? `suppressed ${f.severity}` : f.severity }), " ",
      el("strong", { class: "id", text: f.id }), " ", ...where,
      el("p", { class: "message", text: f.message }));
    if (f.site) item.append(el("p", { class: "site", text: `loader built at ${f.site}` }));
    if (f.evidence.length) {
      const evidence = el("ul", { class: "evidence" });
      for (const line of f.evidence) evidence.append(el("li", { text: line }));
      item.append(el("details", {}, el("summary", { text: "evidence" }), evidence));
    }
    if (f.fix) item.append(el("p", { class: "fix", text: `fix: ${f.fix}` }));
    if (f.suppressed && f.suppression)
      item.append(el("p", { class: "suppression", text: `suppressed: ${f.suppression.justification}` }));
    return item;
  }

  // The findings; those said to be intended (suppressed: the report sorts
  // them last) in a folded list of their own below.
  function findings() {
    const section = el("section", { id: "findings" }, el("h2", { text: "Findings" }));
    const shown = report.findings.filter((f) => !f.suppressed);
    const quiet = report.findings.filter((f) => f.suppressed);
    if (!shown.length) section.append(el("p", { text: "No findings." }));
    const list = el("ol", { class: "findings" });
    for (const f of shown) list.append(finding(f));
    section.append(list);
    if (quiet.length) {
      const folded = el("ol", { class: "findings" });
      for (const f of quiet) folded.append(finding(f));
      section.append(el("details", { class: "suppressed" },
        el("summary", { text: `${plural(quiet.length, "finding")} suppressed as intended` }), folded));
    }
    root.append(section);
  }

  function matrix(m) {
    const max = Math.max(1, ...m.cells.map((row, i) => Math.max(...row.filter((_, j) => j !== i), 0)));
    const diagonal = Math.max(1, ...m.cells.map((row, i) => row[i]));
    const table = el("table", { class: "matrix" });
    const head = el("tr", {}, el("th", { text: m.blocks ? "ranks" : "rank" }));
    for (const label of m.labels) head.append(el("th", { text: label }));
    table.append(head);
    m.cells.forEach((row, i) => {
      const tr = el("tr", {}, el("th", { text: m.labels[i] }));
      row.forEach((value, j) => {
        const own = i === j;
        const share = value / (own ? diagonal : max);
        const cell = el("td", { "data-value": value, "data-row": i, "data-col": j,
                                title: own ? `${m.labels[i]}: ${value} distinct samples`
                                           : `${m.labels[i]} and ${m.labels[j]} share ${value}` });
        cell.textContent = value;
        cell.style.background = own ? `rgba(60, 110, 180, ${0.12 + 0.5 * share})`
                                    : value ? `rgba(200, 60, 40, ${0.15 + 0.7 * share})` : "";
        tr.append(cell);
      });
      table.append(tr);
    });
    return el("figure", { class: "plot" },
      el("figcaption", { text: "Samples shared between ranks (diagonal: a rank's own distinct samples)" +
                                (m.blocks ? "; ranks in blocks" : "") }),
      el("div", { class: "scroll" }, table));
  }

  function canvasFigure(kind, caption) {
    const canvas = el("canvas", { class: kind });
    const figure = el("figure", { class: "plot" }, el("figcaption", { text: caption }),
                      el("div", { class: "chart" }, canvas));
    return [figure, canvas];
  }

  function bars(b) {
    const [figure, canvas] = canvasFigure("bars", "Batches and samples per rank" +
                                          (b.blocks ? " (per block of ranks: least to most)" : ""));
    return [figure, () => new Chart(canvas, {
      type: "bar",
      data: { labels: b.labels, datasets: [
        { label: "batches", data: b.batches, backgroundColor: "rgba(60, 110, 180, 0.7)", yAxisID: "batches" },
        { label: "samples", data: b.samples, backgroundColor: "rgba(230, 140, 40, 0.7)", yAxisID: "samples" }] },
      options: { scales: {
        batches: { position: "left", beginAtZero: true, title: { display: true, text: "batches" } },
        samples: { position: "right", beginAtZero: true, grid: { drawOnChartArea: false },
                   title: { display: true, text: "samples" } },
        x: { title: { display: true, text: b.blocks ? "ranks" : "rank" } } } } })];
  }

  function histogram(h, ranks) {
    const [figure, canvas] = canvasFigure("histogram",
      "Samples by the number of ranks that read them (0: missing" +
      (h.known_missing ? "" : ", not known: no dataset length or a partial epoch") +
      `; ${ranks}: every rank)`);
    const colors = h.counts.map((_, k) => k === 0 ? "rgba(200, 60, 40, 0.8)"
      : k === ranks && ranks > 1 ? "rgba(230, 140, 40, 0.8)" : "rgba(60, 110, 180, 0.7)");
    return [figure, () => new Chart(canvas, {
      type: "bar",
      data: { labels: h.counts.map((_, k) => String(k)),
              datasets: [{ label: "samples", data: h.counts, backgroundColor: colors,
                           barPercentage: 1, categoryPercentage: 0.95 }] },
      options: { plugins: { legend: { display: false } },
                 scales: { x: { title: { display: true, text: "ranks that read the sample" } },
                           y: { beginAtZero: true, title: { display: true, text: "samples" } } } } })];
  }

  function timeline(t) {
    const [figure, canvas] = canvasFigure("timeline",
      "When each rank drew its batches (seconds from the epoch's first batch; area: batches)");
    const most = Math.max(1, ...t.points.map((p) => p[2]));
    const seconds = t.bin_ns / 1e9;
    const data = t.points.map((p) => ({ x: (p[0] + 0.5) * seconds, y: p[1], r: 2 + 7 * Math.sqrt(p[2] / most),
                                        batches: p[2] }));
    return [figure, () => new Chart(canvas, {
      type: "bubble",
      data: { datasets: [{ label: "batches", data, backgroundColor: "rgba(60, 110, 180, 0.6)" }] },
      options: { plugins: { legend: { display: false }, tooltip: { callbacks: {
                   label: (c) => `${t.labels[c.raw.y]}: ${c.raw.batches} batches near ${c.raw.x.toFixed(2)} s` } } },
                 scales: { x: { beginAtZero: true, title: { display: true, text: "seconds" } },
                           y: { reverse: true, min: -0.5, max: t.labels.length - 0.5,
                                afterBuildTicks: (axis) => { axis.ticks = t.labels.map((_, i) => ({ value: i })); },
                                ticks: { autoSkip: true, callback: (v) => t.labels[v] },
                                title: { display: true, text: "rank" } } } } })];
  }

  function loaders() {
    const draw = [];
    for (const loader of report.loaders) {
      const section = el("section", { class: "loader", id: `loader-${loader.id}`, "data-loader": loader.id },
        el("h2", { text: `${loader.id} at ${loader.site}` }),
        el("p", { class: "about", text: [loader.class, loader.batch_sampler, loader.sampler]
          .filter(Boolean).join(", ") +
          `; dataset length ${loader.dataset_len ?? "unknown"}, batch size ${loader.batch_size ?? "unknown"}, ` +
          `${plural(loader.num_workers ?? 0, "worker")}` }));
      const epochs = plots[loader.id] || [];
      if (!epochs.length) section.append(el("p", { text: "Never iterated." }));
      for (const e of epochs) {
        const summary = (loader.epochs || []).find((x) => x.epoch === e.epoch) || {};
        const ranks = e.histogram ? e.histogram.counts.length - 1 : 0;
        const box = el("div", { class: "epoch", "data-epoch": e.epoch },
          el("h3", { text: `epoch ${e.epoch}: ${summary.union ?? "?"} distinct samples, ` +
                           `${summary.missing ?? "?"} missing, ${summary.cross_rank_duplicates ?? "?"} read by ` +
                           `more than one rank` }));
        const grid = el("div", { class: "plots" }, matrix(e.matrix));
        for (const [figure, make] of [bars(e.bars),
                                      e.histogram ? histogram(e.histogram, ranks) : [null, null],
                                      timeline(e.timeline)]) {
          if (!figure) continue;
          grid.append(figure);
          draw.push(make);
        }
        if (!e.histogram)
          grid.append(el("p", { text: "No read-count histogram: the indices span too far." }));
        box.append(grid);
        section.append(box);
      }
      root.append(section);
    }
    return draw;
  }

  function processes() {
    const section = el("section", { id: "processes" }, el("h2", { text: "Processes" }));
    const byPid = new Map(report.processes.map((p) => [p.pid, p]));
    const children = new Map();
    const tops = [];
    for (const p of report.processes) {
      if (p.ppid !== null && byPid.has(p.ppid)) {
        if (!children.has(p.ppid)) children.set(p.ppid, []);
        children.get(p.ppid).push(p);
      } else {
        tops.push(p);
      }
    }
    function ending(p) {
      const raised = p.exception ? `, raised ${p.exception.type}: ${p.exception.message}` : "";
      if (p.exit_signal) return `killed by signal ${p.exit_signal}${raised}`;
      if (p.exited) return `exit ${p.exit_status}${raised}`;
      return `end not recorded${raised}`;
    }
    function kidsList(item, kids) {
      if (!kids.length) return;
      const list = el("ul", {});
      for (const k of kids.sort((a, b) => a.pid - b.pid)) list.append(node(k));
      item.append(kids.length > 16 ? el("details", {}, el("summary", { text: plural(kids.length, "child") }), list)
                                   : list);
    }
    function node(p) {
      const rank = p.rank === null || p.rank === undefined ? "" : ` ${p.rank}`;
      const role = p.worker ? `worker ${p.worker_id ?? "?"} of rank${rank}` : `${p.role}${p.role === "rank" ? rank : ""}`;
      const item = el("li", { "data-pid": p.pid, class: p.exit_signal || (p.exited && p.exit_status) || p.exception ? "died" : "" },
        `${role}, pid ${p.pid}${p.exec ? " (exec)" : ""}: ${ending(p)}`);
      kidsList(item, children.get(p.pid) || []);
      return item;
    }
    // Processes whose parent was not recorded (a launcher that never
    // imported torch) hang under that parent's pid.
    const unrecorded = new Map();
    for (const p of tops) {
      const key = p.ppid ?? "unknown";
      if (!unrecorded.has(key)) unrecorded.set(key, []);
      unrecorded.get(key).push(p);
    }
    const list = el("ul", { class: "tree" });
    for (const [ppid, kids] of unrecorded) {
      const item = el("li", { class: "unrecorded" }, ppid === "unknown" ? "parent unknown"
                                                                        : `pid ${ppid} (not recorded)`);
      kidsList(item, kids);
      list.append(item);
    }
    section.append(list);
    root.append(section);
  }

  header();
  findings();
  const draw = loaders();
  processes();
  for (const make of draw) make();
  document.body.setAttribute("data-drawn", String(draw.length));
})();
