"""test_flame.py - functional tests of the flame graph: drawn by gnuplot from the call paths of
real run files, saved as PNG and SVG beside the other charts, embedded in the Charts sheet, and
still drawn (with a note) for a tree too deep and too wide to show whole."""

import re
import zipfile

from reporter_helpers import RunSpec, Thread, Tree, lay_out, must_run, templates_args


def svg_texts(path):
    """The text drawn in an SVG picture, one string per text element."""
    return [re.sub(r"<[^>]*>", "", t) for t in
            re.findall(r"<text[^>]*>(.*?)</text>", path.read_text(), re.S)]


def two_thread_run(folder):
    """Thread 1 runs main > (parse > lex, compute); thread 2 runs worker > compute."""
    main = Tree("main", 100, [Tree("parse", 2000, [Tree("lex", 3000)]), Tree("compute", 9000)])
    worker = Tree("worker", 50, [Tree("compute", 7000)])
    rows1, end1 = lay_out(1, [main, main])
    rows2, end2 = lay_out(2, [worker])
    RunSpec("profiling_2026.04.01_00.00.00_1.csv", 10**9,
            [Thread(1, 1, "main"), Thread(2, 2, "worker")], rows1 + rows2,
            duration=max(end1, end2) + 1).write(folder)


def test_flame_graph_is_saved_embedded_and_labelled(tmp_path):
    """flame.png (a PNG) and flame.svg are in the charts folder, the PNG is one of the Charts
    sheet's pictures byte for byte, and the SVG shows the top-level regions (main, worker) and
    their callees by name, under the chart's title."""
    folder = tmp_path / "runs"
    two_thread_run(folder)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, *templates_args())
    png = (tmp_path / "out-charts" / "flame.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with zipfile.ZipFile(out) as z:
        media = [z.read(n) for n in z.namelist() if n.startswith("xl/media/")]
        rels = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/drawings/_rels/")]
    assert png in media
    texts = svg_texts(tmp_path / "out-charts" / "flame.svg")
    assert "profreport: flame graph of the call paths" in texts
    assert "share of all time in top-level regions, threads and runs merged" in texts
    for name in ("main", "worker", "parse", "compute"):
        assert name in texts, (name, texts)
    assert any("media/image" in r for r in rels)


def test_deep_wide_tree_is_drawn_with_a_note(tmp_path):
    """A path 50 deep and 3000 callees too narrow to see: the flame graph is drawn, the 50
    levels are labelled, and its axis label says how many call paths were left out (the 3000
    narrow ones)."""
    folder = tmp_path / "runs"
    chain = Tree("level49", 1000)
    for d in range(48, 0, -1):
        chain = Tree(f"level{d}", 10, [chain])
    fan = [Tree(f"tiny{i}", 1) for i in range(3000)]
    rows, end = lay_out(1, [Tree("main", 10, [chain] + fan)])
    RunSpec("profiling_2026.04.02_00.00.00_1.csv", 10**9, [Thread(1, 1, "main")], rows,
            duration=end + 1).write(folder)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, *templates_args())
    texts = svg_texts(tmp_path / "out-charts" / "flame.svg")
    assert "profreport: flame graph of the call paths" in texts
    assert ("share of all time in top-level regions, threads and runs merged; 3000 call paths "
            "under 0.1% wide or over 160 deep not drawn") in texts, texts
    for d in range(1, 50):
        assert f"level{d}" in texts, d
    assert not any(t.startswith("tiny") for t in texts)
