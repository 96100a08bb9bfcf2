# SPDX-License-Identifier: MIT
"""Opens an HTML report of accwatch-report in headless Chromium (Debian's
chromium, driven by Playwright) and checks it against what the scenario
read: no console message of level error or warning and no page error, every
finding and loader of the report in the page, and the plots drawn with the
true numbers, read back from the page (the matrix's cells, the Chart.js
charts' data): per rank its batches, samples and distinct samples, the
samples each pair of ranks shares, how many ranks read each sample, and a
timeline row per rank holding at least the batches it consumed. Writes a
screenshot of the whole page.

usage: html_check.py --html FILE --expect FILE.json --screenshot FILE.png [--top N]
EXPECT: {"findings": [[id, loader], ...], "loaders": [id, ...],
         "epochs": [{"loader", "epoch", "ranks": [r, ...], "batches",
                     "samples", "unique": [per rank], "shared": [[n]],
                     "read_by": {k: samples}}]}
"""
import argparse
import json
import pathlib
import sys

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"

READ_BACK = """() => {
  const out = {findings: [], loaders: [], epochs: []};
  for (const li of document.querySelectorAll("li.finding"))
    out.findings.push([li.dataset.id, li.dataset.loader || null]);
  for (const section of document.querySelectorAll("section.loader")) {
    out.loaders.push(section.dataset.loader);
    for (const box of section.querySelectorAll("div.epoch")) {
      const chart = (kind) => Chart.getChart(box.querySelector("canvas." + kind));
      const bars = chart("bars"), histogram = chart("histogram"), timeline = chart("timeline");
      const labels = [...box.querySelectorAll("table.matrix tr:first-child th")].slice(1).map((th) => th.textContent);
      const cells = [...box.querySelectorAll("table.matrix tr")].slice(1).map(
        (tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.dataset.value)));
      const rows = {};
      for (const point of timeline.data.datasets[0].data) rows[point.y] = (rows[point.y] || 0) + point.batches;
      out.epochs.push({
        loader: section.dataset.loader, epoch: Number(box.dataset.epoch),
        matrix: {labels, cells},
        bars: {labels: bars.data.labels, batches: bars.data.datasets[0].data, samples: bars.data.datasets[1].data},
        histogram: histogram ? histogram.data.datasets[0].data : null,
        timeline: {labels: timeline.scales.y.ticks.map((t) => t.label), rows},
        drawn: [bars, histogram, timeline].every((c) => !c || c.chartArea.width > 0)});
    }
  }
  return out;
}"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", required=True)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--top", type=int, help="only the top TOP pixels in the screenshot (a README picture)")
    opts = parser.parse_args()
    want = json.load(open(opts.expect))
    problems = []
    with sync_playwright() as p:
        # as root, and in containers whose /dev/shm is small
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        messages = []
        page.on("console", lambda m: messages.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: messages.append(f"page error: {e}"))
        page.on("request", lambda r: messages.append(f"request to {r.url}")
                if not r.url.startswith("file:") else None)
        page.goto(pathlib.Path(opts.html).resolve().as_uri())
        page.wait_for_selector("body[data-drawn]", timeout=30000)
        got = page.evaluate(READ_BACK)
        if opts.top:
            page.screenshot(path=opts.screenshot, clip={"x": 0, "y": 0, "width": 1280, "height": opts.top})
        else:
            page.screenshot(path=opts.screenshot, full_page=True)
        browser.close()
    problems += messages
    if got["findings"] != want["findings"]:
        problems.append(f"findings in the page {got['findings']}, the report's {want['findings']}")
    if got["loaders"] != want["loaders"]:
        problems.append(f"loaders in the page {got['loaders']}, the report's {want['loaders']}")
    shown = {(e["loader"], e["epoch"]): e for e in got["epochs"]}
    for e in want["epochs"]:
        name = f"{e['loader']} epoch {e['epoch']}"
        page_epoch = shown.get((e["loader"], e["epoch"]))
        if page_epoch is None:
            problems.append(f"{name}: not in the page (it has {sorted(shown)})")
            continue
        if not page_epoch["drawn"]:
            problems.append(f"{name}: a chart has no drawing area")
        labels = [str(r) for r in e["ranks"]]
        m = page_epoch["matrix"]
        if m["labels"] != labels or m["cells"] != e["shared"]:
            problems.append(f"{name}: matrix {m['labels']} {m['cells']}, read {labels} {e['shared']}")
        b = page_epoch["bars"]
        if (b["labels"], b["batches"], b["samples"]) != (labels, e["batches"], e["samples"]):
            problems.append(f"{name}: bars {b}, read batches {e['batches']} samples {e['samples']}")
        h = page_epoch["histogram"]
        read_by = [e["read_by"].get(str(k), 0) for k in range(1, len(labels) + 1)]
        if h is None or h[1:] != read_by:
            problems.append(f"{name}: samples read by 1.. ranks {h and h[1:]}, read {read_by}")
        t = page_epoch["timeline"]
        if t["labels"] != labels:
            problems.append(f"{name}: timeline rows {t['labels']}, ranks {labels}")
        for row, batches in enumerate(e["batches"]):
            drawn = t["rows"].get(str(row), 0)
            if drawn < batches or (batches and not drawn):
                problems.append(f"{name}: timeline row {labels[row]} has {drawn} batches, it consumed {batches}")
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)


main()
