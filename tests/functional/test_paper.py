"""test_paper.py - functional tests of the report on paper and at the widths it is written
with: every time shows its unit and three significant digits, no number renders as ###, long
names are not cut, and every sheet prints landscape, one page wide, with its header row
repeated, the title and the page number.

Two real reports: one of six runs of tests/programs/paper (three regions whose names differ
after their tenth character), and one of hand-written run files whose times range from a
19 ns call to 10.8 s totals. openpyxl reads the page setup, number formats and column widths
written; LibreOffice (soffice, Debian's libreoffice-calc-nogui) prints both workbooks to PDF
and poppler's pdftotext reads what a printed page shows.
"""

import os
import re
import shutil
import subprocess

import pytest
from openpyxl.utils import column_index_from_string, get_column_letter

from conftest import run_program
from reporter_helpers import (
    Book,
    EventRow,
    RunSpec,
    Thread,
    must_run,
    render_time,
    templates_args,
)

TITLE = "paper & test"
SHEETS_ON_ONE_PAGE = ["Call cost", "Hit count", "Runs", "Threads", "Call tree", "Call paths",
                      "Warnings"]
# The Summary prints its facts and top table on one page, then each native chart on a page of
# its own (a page break never cuts one).
SUMMARY_PAGES = 4
# The About sheet is reference text (every sheet and column explained): it grows with the
# features, not with the data, and may take two pages.
ABOUT_PAGES = 2
# Sheets that start with one row of column headers, repeated on every printed page.
HEADED = ["Call cost", "Hit count", "Runs", "Threads", "Call tree", "Call paths", "Warnings",
          "About"]
LONG_NAME = ("std::vector<std::pair<std::string, int>>::_M_realloc_insert<std::pair<std::string, "
             "int>>(iterator, value_type&&)")
TIME = re.compile(r"-?[\d,]+(?:\.\d+)? (?:ns|us|ms|s)")


# ---- the two reports ----


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    """Six runs of tests/programs/paper reported with charts: (stdout, workbook path)."""
    tmp = tmp_path_factory.mktemp("paper")
    folder = tmp / "runs"
    for _ in range(6):
        run_program(tmp, "paper", profile_dir=folder)
    out = tmp / "paper.xlsx"
    p = must_run(folder, "-o", out, "--title", TITLE, *templates_args())
    return p.stdout.decode(), out


def wide_runs():
    """Two summary runs (1 tick = 1 ns): "interpreter" runs once per run for 10.788886607 s,
    "step" 10,000,000 times at 19 ns, and a region with a 107-character C++ name 3 times
    for 2.5 ms."""
    runs = []
    for k in range(2):
        rows = []
        for name, calls, each in [("interpreter", 1, 10788886607), ("step", 10**7, 19),
                                  (LONG_NAME, 3, 2500000)]:
            rows.append({"Region": name, "Thread": 1, "Calls": calls, "Ticks": calls * each,
                         "Self": calls * each, "Min": each, "Max": each,
                         "SumSquares": calls * each * each, "Outer": calls * each,
                         "Histogram": ""})
        runs.append(RunSpec(f"profiling_2026.05.05_00.00.0{k}_{k + 1}.csv", 10**9,
                            [Thread(1, 100 + k, "main")], rows, mode="summary",
                            duration=10788886607 + 190000000 + 7500000))
    return runs


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """The report of wide_runs, without charts: (stdout, workbook path)."""
    tmp = tmp_path_factory.mktemp("wide")
    for run in wide_runs():
        run.write(tmp / "runs")
    out = tmp / "wide.xlsx"
    p = must_run(tmp / "runs", "-o", out, "--title", "wide", "--no-gnuplot")
    return p.stdout.decode(), out


# A program of this many functions prints on at most LARGE_PAGES pages (issue 25).
LARGE_FUNCTIONS = 2000
LARGE_PAGES = 40
# Where the large program's functions are, as its Function records say (DWARF's paths): the
# handlers in one file, each at line 100 + K; main in a file whose build path is longer than
# the 60 characters a column of names grows to.
HANDLERS_FILE = "/home/builder/yaml-cpp/src/parser.cpp"
MAIN_FILE = ("/home/builder/rpmbuild/BUILD/yaml-cpp-0.7.0/redhat-linux-build/generated/src/"
             "main_entry_point.cpp")


def large_functions():
    """The large program's Function records: region, file, line, module, offset."""
    recs = [["Function", "main", MAIN_FILE, 12, "/usr/bin/yaml", "0x1000"]]
    for i in range(LARGE_FUNCTIONS // 2):
        recs.append(["Function", f"yaml::Parser<int>::handle_{i:04d}(yaml::Node const&) const",
                     HANDLERS_FILE, 100 + i, "/usr/bin/yaml", f"0x{0x2000 + 16 * i:x}"])
    return recs


def large_runs():
    """Two events runs of a C++-like program of LARGE_FUNCTIONS functions (1 tick = 1 ns):
    main calls each yaml::Parser<int>::handle_K(yaml::Node const&) const once, which calls
    std::vector<yaml::Token, std::allocator<yaml::Token> >::at_K(unsigned long) once. main and
    the handlers have Function records (large_functions); the vector's functions have none."""
    runs = []
    half = LARGE_FUNCTIONS // 2
    for k in range(2):
        rows, start = [], 0
        for i in range(half):
            outer = f"yaml::Parser<int>::handle_{i:04d}(yaml::Node const&) const"
            inner = f"std::vector<yaml::Token, std::allocator<yaml::Token> >::at_{i:04d}(unsigned long)"
            rows.append(EventRow(inner, 50 + i, 1, outer, 2, 50 + i, start + 10, 0))
            rows.append(EventRow(outer, 100 + 2 * i, 1, "main", 1, 50 + i, start, 0))
            start += 100 + 2 * i
        rows.append(EventRow("main", start + 10, 1, "", 0, 10 + 0, 0, 0))
        runs.append(RunSpec(f"profiling_2026.05.06_00.00.0{k}_{k + 1}.csv", 10**9,
                            [Thread(1, 200 + k, "main")], rows, duration=start + 20,
                            extra=large_functions()))
    return runs


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """The report of large_runs, with charts: (stdout, workbook path)."""
    tmp = tmp_path_factory.mktemp("large")
    for run in large_runs():
        run.write(tmp / "runs")
    out = tmp / "large.xlsx"
    p = must_run(tmp / "runs", "-o", out, "--title", "large", *templates_args())
    return p.stdout.decode(), out


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    """A sampled run of tests/programs/auto/sampling (every function hooked), whose Summary says
    how it was timed in a long Timing value, reported without charts: (stdout, workbook)."""
    tmp = tmp_path_factory.mktemp("sampled")
    run_program(tmp, "auto/sampling", "calls", "2000000", profile_dir=tmp / "runs")
    out = tmp / "sampled.xlsx"
    p = must_run(tmp / "runs", "-o", out, "--no-gnuplot")
    return p.stdout.decode(), out


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory, paper, wide, large, sampled):
    """The workbooks printed by LibreOffice: {"paper": [page texts], "wide": ..., "large":
    ..., "sampled": ...}. One soffice for all (its start is most of the time), with a profile of its own so
    that tests running at the same time do not share one."""
    soffice, pdftotext = shutil.which("soffice"), shutil.which("pdftotext")
    if not soffice or not pdftotext:
        pytest.skip("LibreOffice (soffice) or pdftotext is not installed here; scripts/deps.sh "
                    "installs libreoffice-calc-nogui and poppler-utils, as CI does")
    tmp = tmp_path_factory.mktemp("pdf")
    env = dict(os.environ, HOME=str(tmp / "home"))
    subprocess.run([soffice, f"-env:UserInstallation=file://{tmp}/profile", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp), str(paper[1]), str(wide[1]),
                    str(large[1]), str(sampled[1])],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=300)
    out = {}
    for name in ("paper", "wide", "large", "sampled"):
        text = subprocess.run([pdftotext, "-layout", str(tmp / f"{name}.pdf"), "-"],
                              check=True, stdout=subprocess.PIPE, timeout=60).stdout.decode()
        out[name] = text.split("\f")[:-1]  # a form feed ends every page
    return out


def pages_by_sheet(pages):
    """{sheet name: [page texts]} from each page's header."""
    out = {}
    for page in pages:
        first = next(line for line in page.splitlines() if line.strip())
        sheet = re.split(r"\s{2,}", first.strip())[-1]
        out.setdefault(sheet, []).append(page)
    return out


def terminal_figures(stdout, regions):
    """{region: [time texts]} of the terminal summary's lines."""
    out = {}
    for line in stdout.splitlines():
        for r in regions:
            if line.endswith("  " + r):
                out[r] = TIME.findall(line[:-len(r)])
    return out


# ---- on paper (LibreOffice) ----


def test_paper_report_prints_one_page_per_sheet(pdfs, paper):
    """The 3-region, 6-run report printed 38 pages when sheets were portrait and cut into
    columns. One page wide and landscape, each sheet but Charts fits one page (it has at most
    six rows of data) and About, the reference text, on at most two; Charts holds the gnuplot
    pictures, at most one page each, so the whole report prints on at most 8 + 2 + pictures
    pages. Every page carries the title and 'Page N of M'."""
    pages = pdfs["paper"]
    by_sheet = pages_by_sheet(pages)
    counts = {sheet: len(p) for sheet, p in by_sheet.items()}
    for sheet in SHEETS_ON_ONE_PAGE:
        assert counts.get(sheet) == 1, (sheet, counts)
    assert counts.get("Summary") == SUMMARY_PAGES, counts
    assert "Top regions by total time" in by_sheet["Summary"][0]
    assert 1 <= counts.get("About", 0) <= ABOUT_PAGES, counts
    pictures = len(list((paper[1].parent / "paper-charts").glob("*.png")))
    # The self time table and its chart, then each picture on a page of its own.
    assert 1 <= len(by_sheet["Charts"]) <= pictures + 1
    assert len(pages) == sum(counts.values())
    for i, page in enumerate(pages):
        assert TITLE in page
        # LibreOffice numbers the pages of a whole workbook through.
        assert f"Page {i + 1} of {len(pages)}" in page, i


def test_a_program_of_2000_functions_prints_its_top_first_on_few_pages(pdfs, large):
    """A report of 2,000 C++ functions prints on at most 40 pages (823 for a real one of 2,235
    before): the Summary first, then the top of Call cost by short name, whose footer says how
    many more rows the sheet holds; no page is a sheet's 41st row onwards."""
    pages = pdfs["large"]
    assert len(pages) <= LARGE_PAGES, len(pages)
    by_sheet = pages_by_sheet(pages)
    assert list(by_sheet)[:2] == ["Summary", "Call cost"], list(by_sheet)
    assert "Top regions by total time" in pages[0]
    cost = by_sheet["Call cost"][0]
    assert "Short name" in cost and "yaml::Parser<…>::handle_" in cost
    assert "Printed: the top 40 of 2001 regions; the sheet holds them all" in cost
    # The full names are in the sheet, not on paper.
    assert "yaml::Parser<int>::handle_" not in "\n".join(by_sheet["Call cost"])
    _, rows, _ = Book(large[1]).cost()
    assert len(rows) == LARGE_FUNCTIONS + 1


def printed_columns(ws):
    """The headers of the columns in ws's print area, left to right."""
    (area,) = ws.print_area if isinstance(ws.print_area, list) else [ws.print_area]
    m = re.fullmatch(r"(?:.*!)?\$([A-Z]+)\$\d+:\$([A-Z]+)\$\d+", area)
    assert m, area
    first, last = (column_index_from_string(m.group(k)) for k in (1, 2))
    return [ws.cell(row=1, column=c).value for c in range(first, last + 1)]


def printed_font_pt(ws, columns, paper_in=11.0):
    """The size an 11-point font prints at when the columns fit one landscape page wide, as a
    spreadsheet scales them: a column w characters wide is 7 w + 5 pixels at 96 per inch
    (Calibri 11's digit), the page paper_in inches wide (Letter, the narrower of Letter and
    A4) less its side margins."""
    pixels = sum(7 * ws.column_dimensions[get_column_letter(c)].width + 5 for c in columns)
    room = (paper_in - ws.page_margins.left - ws.page_margins.right) * 96
    return 11 * min(1.0, room / pixels)


def test_printed_call_cost_shows_where_each_function_is(pdfs, large):
    """The printed Call cost stopped at Median: Source file and Line, 14 columns further
    right, were outside its print area, so no page showed where a function is. Now they print
    right after Median, on the same landscape page one wide, with the text at 8 pt or more
    (names and paths past 40 characters wrap, the side margins are half an inch); each
    function's printed line shows its file and line, as its Function record says."""
    _, path = large
    ws = Book(path).wb["Call cost"]
    assert printed_columns(ws) == ["Short name", "Calls", "Total", "Total %", "Self", "Self %",
                                   "Mean", "Median", "Source file", "Line"]
    assert ws.page_setup.orientation == "landscape"
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.page_setup.fitToWidth in (None, 1)  # left out means 1 (ECMA-376 18.3.1.64)
    assert ws.page_setup.fitToHeight == 0
    heads = [c.value for c in ws[1]]
    first = heads.index("Short name") + 1
    assert printed_font_pt(ws, range(first, first + 10)) >= 8
    pages = pages_by_sheet(pdfs["large"])["Call cost"]
    lines = "\n".join(pages).splitlines()
    for i in (999, 998, 0):  # the heaviest handlers, and a handler the top 40 leaves out
        name = f"yaml::Parser<…>::handle_{i:04d}(…)"
        printed = [l for l in lines if name in l]
        if i == 0:
            assert not printed
            continue
        assert len(printed) == 1, (name, printed)
        assert re.search(rf"{re.escape(HANDLERS_FILE)}\s+{100 + i}$", printed[0]), printed[0]
    # main's path is longer than its column: it wraps, and its line number still prints
    main = next(l for l in lines if re.match(r"\s*main\s", l))
    assert main.rstrip().endswith(" 12"), main
    assert MAIN_FILE[:20] in "\n".join(pages)


def test_printed_figures_are_the_terminals_with_units_and_no_hashes(pdfs, paper):
    """No cell prints as ###; the Summary page shows the times the terminal printed, text
    for text (one convention for both), each with its unit; labels and values share a
    line."""
    stdout, path = paper
    pages = pdfs["paper"]
    assert not any("###" in p for p in pages)
    regions = ["fio:compress-dictionary", "fio:compress", "fio:checksum"]
    figures = terminal_figures(stdout, regions)
    assert set(figures) == set(regions)
    summary = pages_by_sheet(pages)["Summary"][0]
    for region, times in figures.items():
        assert len(times) == 5, (region, times)  # total, self, mean, median, p99
        line = next(l for l in summary.splitlines() if re.search(rf"\b{re.escape(region)}\s", l))
        assert times[0] in line and times[2] in line, (region, times, line)  # total, mean
    events = Book(path).summary()["Events read"]
    assert re.search(rf"Events read\s+{events:,}\b", summary)


def test_printed_runs_sheet_shows_whole_region_names(pdfs):
    """The Runs sheet's region x run matrices name each region whole: 'fio:compress' and
    'fio:compress-dictionary' were both cut to 'fio:compre'."""
    runs = "\n".join(pages_by_sheet(pdfs["paper"])["Runs"])
    names = re.findall(r"^\s*(fio:\S+)", runs, re.M)
    assert {"fio:compress", "fio:compress-dictionary", "fio:checksum"} <= set(names)


def test_wide_ranging_times_print_with_their_units(pdfs, wide):
    """10.8 s totals and 19.0 ns calls in one report: no ###, both printed as the terminal
    prints them, and the 107-character name wrapped, not cut."""
    stdout, _ = wide
    pages = pdfs["wide"]
    assert not any("###" in p for p in pages)
    figures = terminal_figures(stdout, ["interpreter", "step"])
    assert figures["interpreter"][:3] == ["21.6 s", "21.6 s", "10.8 s"]
    assert figures["step"][:3] == ["380 ms", "380 ms", "19.0 ns"]
    by_sheet = pages_by_sheet(pages)
    summary = by_sheet["Summary"][0]
    assert re.search(r"interpreter\s+21\.6 s\s+.*\s10\.8 s", summary)
    assert re.search(r"step\s+380 ms\s+.*\s19\.0 ns", summary)
    cost = "\n".join(by_sheet["Call cost"])
    assert "21.6 s" in cost and "19.0 ns" in cost and "2.50 ms" in cost
    # On paper Call cost shows the short name (the full one is in the sheet, and wraps there).
    flat = re.sub(r"\s+", "", cost)
    assert re.sub(r"\s+", "", "std::vector<…>::_M_realloc_insert<…>(…)") in flat


# ---- as written (openpyxl) ----


def shown(cell):
    """The text a cell shows in its number format, for the formats profreport writes."""
    v, f = cell.value, cell.number_format
    if isinstance(v, str):
        return v
    if f.endswith('s"'):
        return render_time(v, f)
    if f == "#,##0":
        return f"{v:,.0f}"
    if f == "0.00%":
        return f"{100 * v:.2f}%"
    if f == "0.0000":
        return f"{v:.4f}"
    if f == "0.0000E+00":
        return f"{v:.4E}"
    if f == "#,##0.000":
        return f"{v:,.3f}"
    assert f == "General", f
    return f"{v:.10g}"


@pytest.mark.parametrize("report", ["paper", "wide"])
def test_every_sheet_is_set_up_for_paper(request, report):
    """Landscape, fit to one page wide and any number of pages down, the header row repeated
    (print titles), the title and sheet name in the page header, the page number below."""
    _, path = request.getfixturevalue(report)
    book = Book(path)
    for ws in book.wb.worksheets:
        assert ws.page_setup.orientation == "landscape", ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        # fitToWidth left out means 1, its default in the file format (ECMA-376 18.3.1.64).
        assert ws.page_setup.fitToWidth in (None, 1), ws.title
        assert ws.page_setup.fitToHeight == 0, ws.title
        if ws.title in HEADED:
            assert ws.print_title_rows == "$1:$1", ws.title
        assert ws.oddHeader.left.text == (TITLE if report == "paper" else "wide").replace(
            "&", "&&"), ws.title
        assert ws.oddHeader.right.text == "&A", ws.title
        assert ws.oddFooter.center.text == "Page &P of &N", ws.title


@pytest.mark.parametrize("report", ["paper", "wide"])
def test_columns_fit_what_they_hold(request, report):
    """Every number's text fits its column as written (a spreadsheet shows ### otherwise);
    text wider than its column wraps or spills into empty cells beside it, within the sheet's
    columns (a caption over a picture, a note after a row's last figure: they widen no
    column), and no column of names is narrower than its names up to 60 characters. Times are
    numbers of ns, each shown in its own unit."""
    _, path = request.getfixturevalue(report)
    book = Book(path)
    for ws in book.wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is None or c.font.b and c.font.sz and c.font.sz > 11:
                    continue  # the title spills into the empty cells beside it
                width = ws.column_dimensions[c.column_letter].width
                text = shown(c)
                if isinstance(c.value, str):
                    wraps = c.alignment.wrap_text
                    room = width
                    for k in range(c.column + 1, ws.max_column + 1):
                        if len(text) <= room or ws.cell(c.row, k).value is not None:
                            break
                        room += ws.column_dimensions[get_column_letter(k)].width
                    assert len(text) <= room or wraps, (ws.title, c.coordinate, text, width)
                else:
                    assert len(text) + 1 <= width, (ws.title, c.coordinate, text, width)
                if c.number_format.endswith('s"'):
                    assert TIME.fullmatch(text), text


@pytest.mark.parametrize("report", ["paper", "wide"])
def test_summary_keys_and_values_start_at_the_top_of_their_row(request, report):
    """A value of several lines (Timing) and its key both begin at the top of the row, which is
    made tall enough for the widest font a viewer may use: the key is beside the value's first
    line, and the room left over is below the text, not above it (LibreOffice printed the key
    under a blank third of the row)."""
    _, path = request.getfixturevalue(report)
    ws = Book(path).wb["Summary"]
    rows = {r[0].value: r for r in ws.iter_rows(min_row=2) if r[0].value}
    assert "Timing" in rows and "\n" not in rows["Timing"][1].value
    for key, row in rows.items():
        if key.startswith("Top regions"):
            break
        assert row[0].alignment.vertical == "top", (key, row[0].alignment)
        if isinstance(row[1].value, str):
            assert row[1].alignment.vertical == "top" and row[1].alignment.wrap_text, key
    # The top regions' table sits in those columns, as wide as the values above: its headers
    # stand over their numbers, at the right.
    head = rows["Region"]
    assert [c.value for c in head[:7]] == ["Region", "Self", "Self %", "Total", "Total %",
                                           "Calls", "Mean"]
    assert [c.alignment.horizontal for c in head[1:7]] == ["right"] * 6


@pytest.mark.parametrize("report", ["paper", "sampled"])
def test_summary_rows_are_as_tall_as_their_printed_lines(request, pdfs, report):
    """Each of the Summary's key and value rows (above its table) is tall enough for the lines
    LibreOffice prints its value in, and not much taller: the heights were estimated at a
    digit's width per character, and a sampled run's Timing value (600 characters) printed 13
    lines in a row of 18. Printed lines: from the key's line to the next key's, blank lines
    left out."""
    ws = Book(request.getfixturevalue(report)[1]).wb["Summary"]
    rows = []
    for r in ws.iter_rows(min_row=2):
        key = r[0].value
        if not key:
            continue
        if key.startswith("Top regions"):
            break
        height = ws.row_dimensions[r[0].row].height or 15
        rows.append((key, round(height / 15)))
    page = pages_by_sheet(pdfs[report])["Summary"][0].splitlines()
    at = [next(i for i, line in enumerate(page)
               if re.match(rf"{re.escape(key)}(\s{{2,}}|$)", line.strip())) for key, _ in rows]
    printed = {}
    for k, (key, lines) in enumerate(rows):
        end = at[k + 1] if k + 1 < len(at) else at[k] + lines
        printed[key] = sum(1 for line in page[at[k]:end] if line.strip())
        assert printed[key] <= lines <= printed[key] + 1 + printed[key] // 8, (key, printed, lines)
    assert sum(n > 1 for n in printed.values()) >= 3  # Command, Units, Runs started, ...
    if report == "sampled":
        assert printed["Timing"] >= 8, printed


def test_wide_times_are_numbers_of_ns_shown_in_their_unit(wide):
    """The 10.8 s call and the 19 ns call: numbers of ns in the cells (to sort and compute
    with), shown as 10.8 s and 19.0 ns by their formats."""
    _, path = wide
    book = Book(path)
    ws = book.wb["Call cost"]
    headers = [c.value for c in ws[1]]
    by_region = {r[0].value: r for r in ws.iter_rows(min_row=2)}
    mean = headers.index("Mean")
    interp, step = by_region["interpreter"][mean], by_region["step"][mean]
    assert interp.value == 10788886607 and render_time(interp.value, interp.number_format) \
        == "10.8 s"
    assert step.value == 19 and render_time(step.value, step.number_format) == "19.0 ns"
    total = by_region["interpreter"][headers.index("Total")]
    assert render_time(total.value, total.number_format) == "21.6 s"


def test_the_top_table_prints_on_one_page_with_its_header(tmp_path):
    """A sampled run's Summary says how it was timed in a long Timing value; below it a top
    table of 25 regions crossed the end of the first printed page, its rows after the break
    without a header. The table now starts a page when it would not fit on the first: the page
    that has its caption has its header and its last row."""
    soffice, pdftotext = shutil.which("soffice"), shutil.which("pdftotext")
    if not soffice or not pdftotext:
        pytest.skip("LibreOffice (soffice) or pdftotext is not installed here; scripts/deps.sh "
                    "installs libreoffice-calc-nogui and poppler-utils, as CI does")
    run_program(tmp_path, "auto/cxx_calls", profile_dir=tmp_path / "runs")
    out = tmp_path / "top.xlsx"
    must_run(tmp_path / "runs", "-o", out, "--no-gnuplot", "--top", "25")
    rows = Book(out).rows("Summary")
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Region")
    table = [r[0] for r in rows[head + 1:head + 26]]
    assert len(table) == 25 and all(table), table  # the run has more than 25 regions
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    subprocess.run([soffice, f"-env:UserInstallation=file://{tmp_path}/profile", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(out)], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    text = subprocess.run([pdftotext, "-layout", str(tmp_path / "top.pdf"), "-"], check=True,
                          stdout=subprocess.PIPE, timeout=60).stdout.decode()
    page = next(p for p in text.split("\f") if "Top regions by total time" in p)
    assert re.search(r"^Region\s+Self\s", page, re.M), page
    for name in (table[0], table[-1]):
        assert name[:24] in page, (name, page)
