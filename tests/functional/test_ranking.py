"""test_ranking.py - functional tests of --sort (the order of the terminal summary and of the
Call cost sheet) and of the self time charts, checked against orders and values computed from
the rows written to the run files."""

import math
import random
import re
import statistics
import zipfile

import pytest

from reporter_helpers import Book, RunSpec, Thread, Tree, expect_events, lay_out, must_run, \
    profreport, templates_args


def ranking_runs():
    """Two runs whose regions rank differently by every key: 'wrapper' holds long calls of
    the others, 'tiny' is called often and cheaply, 'heavy' rarely and dearly."""
    rng = random.Random(1313)
    runs = []
    for k in range(2):
        trees = []
        for _ in range(3):
            kids = [Tree("tiny", rng.randint(100, 200)) for _ in range(40)]
            kids += [Tree("heavy", rng.randint(40000, 60000))]
            kids += [Tree("middle", rng.randint(3000, 5000)) for _ in range(4)]
            trees.append(Tree("wrapper", rng.randint(500, 900), kids))
        trees += [Tree("loner", rng.randint(12000, 13000)) for _ in range(3)]
        rng.shuffle(trees)
        rows, end = lay_out(1, trees, rng)
        runs.append(RunSpec(f"profiling_2026.03.0{k + 1}_00.00.00_1.csv", 10**9,
                            [Thread(1, 1, "main")], rows, duration=end + 1))
    return runs


def expected_order(exp, key):
    """Region names largest first by key (total, self, calls, mean), ties by name."""
    value = {
        "total": lambda e: e.total,
        "self": lambda e: e.self_ns,
        "calls": lambda e: e.calls,
        "mean": lambda e: statistics.fmean(e.costs),
    }[key]
    return sorted(exp.regions, key=lambda r: (-value(exp.regions[r]), r))


def terminal_order(stdout, names):
    """The region names of the terminal summary's lines, in printed order."""
    return [line.split()[-1] for line in stdout.decode().splitlines()
            if line.split() and line.split()[-1] in names]


@pytest.mark.parametrize("key", ["total", "self", "calls", "mean", None])
def test_sort_orders_terminal_and_call_cost(tmp_path, key):
    """--sort KEY (default total) orders the terminal summary, the Call cost sheet and the
    Summary's top table by that key, largest first; the orders differ between keys."""
    folder = tmp_path / "runs"
    runs = ranking_runs()
    for r in runs:
        r.write(folder)
    exp = expect_events(runs)
    want = expected_order(exp, key or "total")
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot", *(["--sort", key] if key else []))
    assert terminal_order(p.stdout, set(exp.regions)) == want
    book = Book(out)
    assert book.cost()[2] == want
    summary = book.rows("Summary")
    label = {"total": "total time", "self": "self time", "calls": "calls",
             "mean": "mean cost per call"}[key or "total"]
    i = [r[0] for r in summary].index(f"Top regions by {label}")
    assert [r[0] for r in summary[i + 2:i + 2 + len(want)]] == want


def test_sort_orders_are_distinct():
    """The data set tells the keys apart: each key gives its own order."""
    exp = expect_events(ranking_runs())
    orders = {tuple(expected_order(exp, k)) for k in ("total", "self", "calls", "mean")}
    assert len(orders) == 4


@pytest.mark.parametrize("value", ["Total", "time", "", "self,calls"])
def test_bad_sort_value_is_a_usage_error(tmp_path, value):
    """An unknown --sort value exits 2 naming the value and the choices, writing nothing."""
    folder = tmp_path / "runs"
    ranking_runs()[0].write(folder)
    out = tmp_path / "out.xlsx"
    p = profreport(folder, "-o", out, "--sort", value)
    assert p.returncode == 2
    assert f"--sort must be total, self, calls or mean, not '{value}'" in p.stderr.decode()
    assert not out.exists()


def svg_texts(path):
    """The text drawn in an SVG picture, one string per text element."""
    return [re.sub(r"<[^>]*>", "", t) for t in
            re.findall(r"<text[^>]*>(.*?)</text>", path.read_text(), re.S)]


@pytest.mark.parametrize("sort", ["total", "calls"])
def test_self_time_charts_show_the_top_regions_by_self_time(tmp_path, sort):
    """Whatever --sort says, the Charts sheet opens with the top N regions by self time, their
    self time (ns with --unit ns) and share of all self time, and native bar charts of those
    cells on the Charts sheet and on the Summary (where the time goes, its first chart); the
    gnuplot chart selftime.png/.svg shows the same regions, each with its share."""
    folder = tmp_path / "runs"
    runs = ranking_runs()
    for r in runs:
        r.write(folder)
    exp = expect_events(runs)
    want = expected_order(exp, "self")[:3]
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--unit", "ns", "--top", "3", "--sort", sort, *templates_args())
    rows = Book(out).rows("Charts")
    assert rows[0][0] == "Self time by region, top 3"
    assert rows[1][:3] == ["Region", "Self (ns)", "Self %"]
    assert [r[0] for r in rows[2:5]] == want
    for r in rows[2:5]:
        e = exp.regions[r[0]]
        assert r[1] == pytest.approx(e.self_ns, rel=1e-9)
        assert r[2] == pytest.approx(e.self_ns / exp.self_all, rel=1e-9)
    assert rows[5][0] is None
    with zipfile.ZipFile(out) as z:
        charts = [z.read(n).decode() for n in z.namelist()
                  if re.fullmatch(r"xl/charts/chart\d+\.xml", n)]
    mine = [c for c in charts if "Charts!$B$3:$B$5" in c]
    assert len(mine) == 2 and all("Charts!$A$3:$A$5" in c for c in mine)
    assert sum("Where the time goes: self time, top 3" in c for c in mine) == 1
    # The Summary's calls chart numbers its axis as its cells are (LibreOffice printed the
    # source-linked format as 100000000).
    (calls,) = [c for c in charts if "Calls, top 3 regions" in c]
    assert '<c:numFmt formatCode="#,##0" sourceLinked="0"/>' in calls
    # Two to five steps of 1, 2 or 5 times a power of ten on the time axis: a viewer's own
    # choice printed up to nine labels that ran into each other.
    largest = max(exp.regions[n].self_ns for n in want)
    for c in mine:
        step = float(re.search(r'<c:majorUnit val="([^"]+)"', c).group(1))
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 9) in (1, 2, 5) and 2 <= largest / step <= 5, (step, largest)
    texts = svg_texts(tmp_path / "out-charts" / "selftime.svg")
    for name in want:
        assert name in texts, (name, texts)
        share = 100 * exp.regions[name].self_ns / exp.self_all
        assert any(t.endswith(f" ({share:.3g}%)") for t in texts), (name, share, texts)
    assert not set(exp.regions) - set(want) & set(texts)
    assert (tmp_path / "out-charts" / "selftime.png").read_bytes()[:4] == b"\x89PNG"


RB_TREE = ("std::_Rb_tree<YAML::detail::{0} const*, std::pair<YAML::detail::{0} const* const, int>, "
           "std::_Select1st<std::pair<YAML::detail::{0} const* const, int> >, "
           "std::less<YAML::detail::{0} const*>, "
           "std::allocator<std::pair<YAML::detail::{0} const* const, int> > >::"
           "_M_emplace_hint_unique<std::piecewise_construct_t const&, "
           "std::tuple<YAML::detail::{0} const* const&>, std::tuple<> >("
           "std::_Rb_tree_const_iterator<std::pair<YAML::detail::{0} const* const, int> >, "
           "std::piecewise_construct_t const&, std::tuple<YAML::detail::{0} const* const&>&&, "
           "std::tuple<>&&)")
MATCH = "YAML::RegEx::MatchUnchecked<YAML::{0}CharSource>(YAML::{0}CharSource const&) const"


def test_self_time_chart_labels_fit_one_line_and_keep_what_tells_them_apart(tmp_path):
    """Long C++ names: the Charts sheet's Region column, which both self-time bar charts
    read, holds labels of at most 48 characters (a longer one wrapped, and LibreOffice left
    every other bar unnamed), the full name beside it. Where leaving out leading scopes is
    enough, the detail that tells two names apart stays; else the label is the name with its
    template arguments and parameters collapsed."""
    names = [RB_TREE.format("node_ref"), RB_TREE.format("node_data"),
             MATCH.format("String"), MATCH.format("Stream"), "main"]
    rng = random.Random(7)
    trees = [Tree(n, 10000 * (k + 1)) for k, n in enumerate(names) for _ in range(3)]
    rng.shuffle(trees)
    rows, end = lay_out(1, trees, rng)
    run = RunSpec("profiling_2026.03.01_00.00.00_1.csv", 10**9, [Thread(1, 1, "main")], rows,
                  duration=end + 1)
    folder = tmp_path / "runs"
    run.write(folder)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--top", "5", *templates_args())
    rows = Book(out).rows("Charts")
    assert rows[1][0] == "Region" and rows[1][3] == "Full name"
    label = {r[3]: r[0] for r in rows[2:7]}
    assert set(label) == set(names)
    assert all(len(v) <= 48 for v in label.values()), label
    assert label["main"] == "main"
    assert label[MATCH.format("String")] == "\u2026MatchUnchecked<YAML::StringCharSource>(\u2026)"
    assert label[MATCH.format("Stream")] == "\u2026MatchUnchecked<YAML::StreamCharSource>(\u2026)"
    # two names whose shortest forms are alike: the lighter one's label is numbered, in 48
    # characters all the same
    trees = [label[RB_TREE.format(kind)] for kind in ("node_data", "node_ref")]
    assert trees == ["std::_Rb_tree<\u2026>::_M_emplace_hint_unique<\u2026>(\u2026)",
                     "\u2026_Rb_tree<\u2026>::_M_emplace_hint_unique<\u2026>(\u2026) (2)"], trees
