"""test_trend.py - functional tests of the trend chart of many runs: up to 30 runs every run is
a point (trend.gp); past 30, each region's median and p10-p90 band per window of runs
(trendband.gp), whose data are checked against values computed from the run files written.

The data file a template receives is removed once the chart is drawn, so the test draws with a
copy of the templates whose trendband.gp prints its data file (every field as the text it is)
to the picture's file instead of drawing it."""

import math
import re
import random
import shutil

from reporter_helpers import TEMPLATES, RunSpec, Thread, Tree, lay_out, must_run, percentile_inc

# A trendband.gp that writes each row of its data file, fields as they are, to ARG2.
ECHO_TEMPLATE = r'''
set datafile separator "\t"
set print ARG2
stats ARG1 using 0 nooutput
do for [b = 1:STATS_blocks] {
    stats ARG1 index (b - 1) using 0 nooutput
    n = STATS_records
    do for [i = 0:n - 1] {
        stats ARG1 index (b - 1) every ::i::i using (l = strcol(1), x = strcol(2), \
            m = strcol(3), lo = strcol(4), hi = strcol(5), 0) nooutput
        print l . "\t" . x . "\t" . m . "\t" . lo . "\t" . hi
    }
}
'''


def trend_runs(folder, nruns):
    """nruns runs: 'steady' and 'drift' in every run (two calls each), 'early' in the first 10
    only. Returns {region: {run number: mean ns per call}}."""
    rng = random.Random(4242)
    means = {"steady": {}, "drift": {}, "early": {}}
    for k in range(nruns):
        trees = []
        for name, base in (("steady", 5000), ("drift", 20000 + 300 * k), ("early", 900)):
            if name == "early" and k >= 10:
                continue
            ticks = [rng.randint(base, base + base // 5) for _ in range(2)]
            trees += [Tree(name, t) for t in ticks]
            means[name][k + 1] = sum(ticks) / 2
        rows, end = lay_out(1, trees)
        RunSpec(f"profiling_2026.05.01_00.00.00_{k + 1:03d}.csv", 10**9, [Thread(1, 1, "main")],
                rows, duration=end + 1).write(folder)
    return means


def echo_templates(tmp_path):
    """A copy of the templates whose trendband.gp prints its data."""
    mine = tmp_path / "templates"
    shutil.copytree(TEMPLATES, mine)
    (mine / "trendband.gp").write_text(ECHO_TEMPLATE)
    return mine


def test_many_runs_chart_median_and_band_per_window(tmp_path):
    """60 runs: windows of ceil(60 / 25) = 3 runs, 20 of them; for each region a block of 20
    rows at the window's middle run (2, 5, 8, ...) with the median, p10 and p90 (Excel's
    PERCENTILE.INC) of its per-run mean cost (ns with --unit ns) over the window's runs, NaN
    where it never ran; regions in the Call cost order (total time); no trend.png."""
    folder = tmp_path / "runs"
    means = trend_runs(folder, 60)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--unit", "ns", "--templates", echo_templates(tmp_path))
    charts = tmp_path / "out-charts"
    assert not (charts / "trend.png").exists()
    lines = (charts / "trendband.png").read_text().splitlines()
    assert lines == (charts / "trendband.svg").read_text().splitlines()
    order = sorted(means, key=lambda r: -sum(means[r].values()))  # by total time, 2 calls
    assert len(lines) == 3 * 20
    for b, region in enumerate(order):
        for w in range(20):
            label, x, med, lo, hi = lines[b * 20 + w].split("\t")
            runs = range(3 * w + 1, 3 * w + 4)
            assert label == region and float(x) == (runs[0] + runs[-1]) / 2
            vals = [means[region][r] for r in runs if r in means[region]]
            if not vals:
                assert (med, lo, hi) == ("NaN", "NaN", "NaN"), (region, w)
                continue
            for got, q in ((med, 0.5), (lo, 0.1), (hi, 0.9)):
                assert math.isclose(float(got), percentile_inc(vals, q), rel_tol=1e-12), (
                    region, w, q, got, vals)


def test_thirty_runs_still_draw_every_run(tmp_path):
    """30 runs (the threshold) keep the run-by-run chart, trend.png and .svg, and no band."""
    folder = tmp_path / "runs"
    trend_runs(folder, 30)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--templates", TEMPLATES)
    charts = tmp_path / "out-charts"
    assert (charts / "trend.png").read_bytes()[:4] == b"\x89PNG"
    assert (charts / "trend.svg").exists()
    assert not (charts / "trendband.png").exists()


def svg_texts(path):
    """The text drawn in an SVG picture, one string per text element."""
    return [re.sub(r"<[^>]*>", "", t).strip() for t in
            re.findall(r"<text[^>]*>(.*?)</text>", path.read_text(), re.S)]


def test_trend_draws_the_top_eight_regions_and_plain_tick_labels(tmp_path):
    """Twelve regions over five runs: the trend chart's key names the top eight by total time,
    each in a colour of its own, and none of the other four; the distribution chart of means
    spread over four decades (a log axis) labels its ticks with plain numbers (0.1, 1, 10,
    100), never with SI suffixes of the unit (100m, 10k)."""
    folder = tmp_path / "runs"
    names = [f"region{i:02d}" for i in range(12)]
    for k in range(5):
        trees = [Tree(name, 10 ** (1 + i // 3) * (12 - i) + k) for i, name in enumerate(names)]
        rows, end = lay_out(1, trees)
        RunSpec(f"profiling_2026.05.01_00.00.00_{k + 1:03d}.csv", 10**9, [Thread(1, 1, "main")],
                rows, duration=end + 1).write(folder)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--templates", TEMPLATES)
    charts = tmp_path / "out-charts"
    texts = svg_texts(charts / "trend.svg")
    order = sorted(names, key=lambda n: -(10 ** (1 + names.index(n) // 3) * (12 - names.index(n))))
    assert [n for n in order if n in texts] == order[:8]
    svg = (charts / "trend.svg").read_text()
    colours = set(re.findall(r"stroke='(rgb\([^)]*\))'", svg)) - {"rgb(  0,   0,   0)",
                                                                  "rgb(224, 224, 224)",
                                                                  "rgb(255, 255, 255)"}
    assert len(colours) >= 8, colours
    ticks = [t for t in svg_texts(charts / "distribution.svg") if re.fullmatch(r"[-0-9.a-zA-Z]+", t)]
    numeric = [t for t in ticks if t[0].isdigit()]
    assert numeric, ticks
    assert all(re.fullmatch(r"[0-9.]+", t) for t in numeric), numeric
