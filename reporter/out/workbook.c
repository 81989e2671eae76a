/*
 * workbook.c - write the report as an XLSX workbook with libxlsxwriter: Summary, Call cost,
 * Hit count, Runs, Threads, Call tree, Memory (when a run has memory checks), Warnings, Charts
 * and About sheets, native charts; for a comparison (--baseline), Comparison and Comparison
 * runs sheets first.
 *
 * Untrusted text (region ids, thread names, file contents) is only ever written with
 * worksheet_write_string, so "=HYPERLINK(...)" stays text; NaN and infinities are never
 * written as numbers (the cell is left empty) because they would corrupt the file.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/cct.h"
#include "model/compare.h"
#include "model/leaks.h"
#include "model/model.h"
#include "model/paths.h"
#include "model/programs.h"
#include "model/suggest.h"
#include "model/tables.h"
#include "base/util.h"
#include "out/workbook.h"
#include "model/runcheck.h"
#include "model/shortname.h"

#include <profreport.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

/* Excel's limit on the characters in a cell. */
#define CELL_MAX 32767
/* The widest a column of names gets (characters), and one of prose (About, Warnings): longer
   text wraps. Numbers set their column's width whatever it is, so that none shows as ###. */
#define WIDTH_NAMES 60
#define WIDTH_PROSE 100
/* The Summary's columns of names and facts: narrower, so that its first page prints at 8 pt or
   more (longer text wraps). */
#define WIDTH_SUMMARY 40

/* The formats every sheet uses. */
struct fmts {
    lxw_format *bold, *key, *value, *header, *title, *num, *pct, *count, *wrap, *note;
    lxw_format *caption; /* bold, and like a title spills into the empty cells beside it */
    lxw_format *aside;   /* a note that spills so: it widens no column */
    lxw_format *ratio, *pvalue, *slower, *faster, *long_name, *header_right;
    lxw_format *indent, *indent_long; /* text set off from a number to its left */
};

/* How a table's text column is written: names wider than cap wrap; indent sets the text off
   from a right-aligned number in the column to its left. */
struct text_style {
    double cap;
    int indent;
};

/* The width an indent takes, in characters. */
#define INDENT_WIDTH 2

/* A cell whose text wraps: its row grows to the lines the text takes at its column's width. */
struct wrapped {
    lxw_row_t row;
    lxw_col_t col;
    char *text;
    double scale; /* of the text's width: bold is wider */
};

/* The width each column of a sheet needs, in characters, measured from what is written, and
   the cells that wrap. */
struct sheet_widths {
    lxw_worksheet *ws;
    double *w;
    size_t n;
    struct wrapped *wraps;
    size_t nwraps, wraps_cap;
    /* A streamed sheet (ws->optimize, add_sheet): the row being written and the most lines
       its wrapped cells take so far */
    lxw_row_t row;
    unsigned lines;
    /* Printed pages: the rows that start one (keep_breaks), and rows keep_first..keep_last
       that should print on one page when they fit one (keep_together); page_px, the width of
       the widest picture or chart, as the page is fit to it too. */
    lxw_row_t breaks[9]; /* and a 0 after them */
    size_t nbreaks;
    lxw_row_t keep_first, keep_last;
    double page_px;
};

/* Writing state: the workbook, formats, how times are stored and shown, column widths. */
struct book {
    lxw_workbook *wb;
    struct fmts f;
    struct unit stored; /* times are numbers of this unit: ns, or the one --unit forces */
    const char *forced; /* --unit's unit, or NULL: each time is shown in its own */
    lxw_format *time_fmt[UNIT_COUNT][TIME_DECIMALS_MAX + 1]; /* made when first needed */
    struct sheet_widths *sheets;
    size_t nsheets;
    char page_header[256]; /* every printed page's header: the title and the sheet's name */
    const struct model *m;
    const struct report_info *ri;
    int stream;         /* the big sheets are streamed (add_sheet) */
    unsigned long cut;  /* strings cut to CELL_MAX */
    unsigned long lost; /* cells past Excel's last row or column, left out */
    char lost_in[200];  /* the sheets they were in, comma-separated */
};

/*
 * A report past this many cells in its per-region sheets streams them (add_sheet): held in
 * memory, libxlsxwriter takes about 80 bytes a cell, 4 to 5 KB a region.
 */
#define STREAM_CELLS 500000

/*
 * A new sheet; a big one (Call cost, Hit count, Runs, Threads, Call tree) is streamed when
 * b->stream is set: libxlsxwriter's constant_memory mode, per sheet, writes each row to a
 * temporary file once the next row starts, so memory stays flat whatever the regions. Such a
 * sheet is written in row order, its row heights set as it goes (note_wrap), and holds no
 * Excel table (libxlsxwriter has none in that mode).
 */
static lxw_worksheet *add_sheet(struct book *b, const char *name, int big)
{
    uint8_t was = b->wb->options.constant_memory;
    b->wb->options.constant_memory = big && b->stream;
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, name);
    b->wb->options.constant_memory = was;
    return ws;
}

/* Whether cell (r, c) is inside Excel's grid; a cell past it is counted as left out, with its
   sheet, for the Warnings sheet and stderr (workbook_write). */
static int cell_fits(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c)
{
    if (r < LXW_ROW_MAX && c < LXW_COL_MAX)
        return 1;
    b->lost++;
    if (ws->name && !strstr(b->lost_in, ws->name)) {
        size_t len = strlen(b->lost_in);
        snprintf(b->lost_in + len, sizeof b->lost_in - len, "%s%s", len ? ", " : "", ws->name);
    }
    return 0;
}

/* The widths of ws, made when its first cell is measured. */
static struct sheet_widths *widths_of(struct book *b, lxw_worksheet *ws)
{
    for (size_t i = 0; i < b->nsheets; i++)
        if (b->sheets[i].ws == ws)
            return &b->sheets[i];
    b->sheets = xrealloc(b->sheets, (b->nsheets + 1) * sizeof *b->sheets);
    struct sheet_widths *sw = &b->sheets[b->nsheets++];
    *sw = (struct sheet_widths){.ws = ws};
    return sw;
}

static unsigned wrap_lines(const char *text, double width, double scale);

/* The width fit_columns gives a column measured at w characters. */
static double column_width(double w) { return ceil(w + 2 < 6 ? 6 : w + 2); }

/*
 * Note that the text of cell (r, c) wraps. A streamed sheet's row is on disk once the next
 * one starts, so its height is set now, from the column's width so far: a column only grows,
 * so the row may be taller than the text needs, never shorter.
 */
static void note_wrap(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *text,
                      double scale)
{
    struct sheet_widths *sw = widths_of(b, ws);
    if (ws->optimize) {
        double width = c < sw->n && sw->w[c] > 0 ? column_width(sw->w[c]) : LXW_DEF_COL_WIDTH;
        unsigned lines = wrap_lines(text, width - 1, scale);
        if (r != sw->row)
            sw->lines = 1;
        sw->row = r;
        if (lines > sw->lines) {
            sw->lines = lines;
            worksheet_set_row(ws, r, 15.0 * lines, NULL);
        }
        return;
    }
    sw->wraps = xgrow_zeroed(sw->wraps, &sw->wraps_cap, sw->nwraps, sizeof *sw->wraps);
    sw->wraps[sw->nwraps++] = (struct wrapped){r, c, xstrdup(text), scale};
}

/* Rows that start a printed page of ws (at most 7; ascending), set when its widths are. */
static void keep_breaks(struct book *b, lxw_worksheet *ws, const lxw_row_t *rows, size_t n)
{
    struct sheet_widths *sw = widths_of(b, ws);
    for (size_t i = 0; i < n && sw->nbreaks < 7; i++)
        sw->breaks[sw->nbreaks++] = rows[i];
}

/* Rows first..last of ws print on one page when they fit on one (a table and its header): a
   page starts at first if, as estimated when the widths are known, they would cross one's
   end. Pictures and charts as wide as px pixels make the page as wide (fit to one page). */
static void keep_together(struct book *b, lxw_worksheet *ws, lxw_row_t first, lxw_row_t last,
                          double px)
{
    struct sheet_widths *sw = widths_of(b, ws);
    sw->keep_first = first;
    sw->keep_last = last;
    sw->page_px = px;
}

/* Note that column c of ws needs width characters. */
static void measure(struct book *b, lxw_worksheet *ws, lxw_col_t c, double width)
{
    struct sheet_widths *sw = widths_of(b, ws);
    if (c >= sw->n) {
        size_t n = (size_t)c + 16;
        sw->w = xrealloc(sw->w, n * sizeof *sw->w);
        for (size_t k = sw->n; k < n; k++)
            sw->w[k] = 0;
        sw->n = n;
    }
    if (width > sw->w[c])
        sw->w[c] = width;
}

/* Characters (UTF-8 lead bytes) in s. */
static size_t text_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The width a header needs: its longest word (the header row wraps between words), and room
   for an autofilter's button; bold text is wider. */
static double header_width(const char *s)
{
    size_t longest = 0, word = 0, all = text_chars(s);
    for (; *s; s++) {
        if (*s == ' ') {
            word = 0;
            continue;
        }
        if (((unsigned char)*s & 0xc0) != 0x80 && ++word > longest)
            longest = word;
    }
    /* Short headers stay on one line. */
    double chars = all <= 10 ? (double)all : (double)longest > 10 ? (double)longest : 10;
    return chars * 1.15 + 2;
}

/*
 * The width of the UTF-8 character that starts with byte c, in widths of a digit (the unit of
 * a column's width), as the widest of the usual spreadsheet fonts draws it: DejaVu Sans, which
 * LibreOffice draws in place of Calibri where Carlito is not installed, is wider than Calibri
 * for almost every letter. A continuation byte is 0; a character outside ASCII is a digit's
 * width, or 1.6 from U+0800 on (CJK ideographs and kana are that wide).
 */
static double char_width(unsigned char c)
{
    /* DejaVu Sans advance widths over its digits', for ' ' to '~', in hundredths. */
    static const unsigned char ascii[95] = {
        50,  63,  72,  132, 100, 150, 123, 43,  61,  61,  79,  132, 50,  57,  50,  53,
        100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 53,  53,  132, 132, 132, 84,
        157, 108, 108, 110, 121, 99,  90,  122, 118, 46,  46,  103, 88,  136, 118, 124,
        95,  124, 109, 100, 96,  115, 108, 155, 108, 96,  108, 61,  53,  61,  132, 79,
        79,  96,  100, 86,  100, 97,  55,  100, 100, 44,  44,  91,  44,  153, 100, 96,
        100, 100, 65,  82,  62,  100, 93,  129, 93,  93,  83,  100, 53,  100, 132};
    if (c >= 0x20 && c < 0x7f)
        return ascii[c - 0x20] / 100.0;
    if ((c & 0xc0) == 0x80)
        return 0;
    return c >= 0xe0 ? 1.6 : 1.0;
}

/* The lines text takes when wrapped between words at width digits (its characters' widths
   scaled by scale, and by 5 % to spare), as a spreadsheet wraps it. */
static unsigned wrap_lines(const char *text, double width, double scale)
{
    double room = width / (scale * 1.05), used = 0, space = char_width(' ');
    unsigned lines = 1;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            lines++;
            used = 0;
            p++;
            continue;
        }
        size_t bytes = strcspn(p, " \n");
        double word = 0;
        for (size_t k = 0; k < bytes; k++)
            word += char_width((unsigned char)p[k]);
        double need = word + (used > 0 ? space : 0);
        if (used > 0 && used + need > room) {
            lines++;
            used = 0;
            need = word;
        }
        /* A word longer than the line is broken across lines. */
        while (need > room && room >= 1) {
            lines++;
            need -= room;
        }
        used += need;
        p += bytes;
        if (*p == ' ')
            p++;
    }
    return lines;
}

/* A string cell; cut to Excel's limit of CELL_MAX characters, and counted, when too long. */
static void put_str_cap(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                        lxw_format *f, double names_cap);

static void put_str(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                    lxw_format *f)
{
    put_str_cap(b, ws, r, c, s, f, WIDTH_NAMES);
}

/* put_str with names wider than names_cap characters wrapped (a column that must stay narrow
   on paper: the Summary's). */
static void put_str_cap(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                        lxw_format *f, double names_cap)
{
    if (!s || !cell_fits(b, ws, r, c))
        return;
    /* Controls and noncharacters would make the sheet and its charts' caches invalid XML. */
    char *v = text_visible(s, strlen(s), 0);
    /* Count characters (UTF-8 lead bytes). */
    size_t chars = 0, k = 0;
    for (; v[k]; k++)
        if (((unsigned char)v[k] & 0xc0) != 0x80 && ++chars > CELL_MAX)
            break;
    if (v[k]) {
        v[k] = 0;
        b->cut++;
    }
    /* The column fits the text up to a cap; longer names wrap rather than being cut off by
       the next cell. A title spills into the empty cells beside it. */
    double cap = f && f == b->f.wrap ? WIDTH_PROSE : names_cap;
    int indent = f && f == b->f.indent;
    if (f == b->f.header || f == b->f.header_right)
        measure(b, ws, c, header_width(v));
    else if (f != b->f.title && f != b->f.caption && f != b->f.aside)
        measure(b, ws, c,
                (chars < cap ? (double)chars : cap) * (f == b->f.bold || f == b->f.key ? 1.15 : 1) +
                    (indent ? INDENT_WIDTH : 0));
    if ((!f || indent) && chars > names_cap)
        f = indent ? b->f.indent_long : b->f.long_name;
    /* Widths count characters as wide as a digit; bold headers are wider. */
    if (f == b->f.header || f == b->f.header_right)
        note_wrap(b, ws, r, c, v, 1.3);
    else if (f == b->f.wrap || f == b->f.long_name || f == b->f.indent_long || f == b->f.value)
        note_wrap(b, ws, r, c, v, 1.0);
    worksheet_write_string(ws, r, c, v, f);
    free(v);
}

/* A chart's title: the user's --title may hold anything (libxlsxwriter copies it). */
static void set_chart_title(lxw_chart *ch, const char *title)
{
    char *v = text_visible(title, strlen(title), 1);
    chart_title_set_name(ch, v);
    free(v);
}

/* How a number shows in format f (one of the shared formats), for its column's width. */
static size_t num_chars(const struct book *b, double v, const lxw_format *f)
{
    char buf[400];
    if (f == b->f.pct)
        return (size_t)snprintf(buf, sizeof buf, "%.2f%%", 100 * v);
    if (f == b->f.ratio)
        return (size_t)snprintf(buf, sizeof buf, "%.4f", v);
    if (f == b->f.pvalue)
        return (size_t)snprintf(buf, sizeof buf, "%.4E", v);
    int decimals = f == b->f.count ? 0 : f == b->f.num ? 3 : -1;
    if (decimals < 0) /* General: Excel shows up to 11 characters */
        return (size_t)snprintf(buf, sizeof buf, "%.10g", v);
    size_t len = (size_t)snprintf(buf, sizeof buf, "%.*f", decimals, v);
    size_t whole = strcspn(buf, ".") - (buf[0] == '-');
    return len + (whole - 1) / 3; /* thousands separators */
}

/* A number cell, or nothing when v is not finite. */
static void put_num(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                    lxw_format *f)
{
    if (!isfinite(v) || !cell_fits(b, ws, r, c))
        return;
    /* Digits are wider than the average letter the widths are counted in. */
    measure(b, ws, c, (double)num_chars(b, v, f) * 1.15);
    worksheet_write_number(ws, r, c, v, f);
}

/* A time cell: ns as a number of b->stored's unit, shown with its own unit (or --unit's) and
   three significant digits by its number format, as the terminal prints it (units.h). */
static void put_time(struct book *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double ns)
{
    if (!isfinite(ns) || !cell_fits(b, ws, r, c))
        return;
    struct time_shown s = time_shown(ns, b->forced);
    lxw_format **f = &b->time_fmt[s.unit][s.decimals];
    if (!*f) {
        char code[64];
        *f = workbook_add_format(b->wb);
        format_set_num_format(*f, time_format(code, sizeof code, s, b->stored));
    }
    char text[400];
    measure(b, ws, c, (double)strlen(time_text(text, sizeof text, ns, b->forced)) * 1.15);
    worksheet_write_number(ws, r, c, ns / b->stored.ns, *f);
}

/* Print setup of a sheet: landscape, one page wide (as many pages down as it takes, so a
   label and its value share a page), row head_row (none when negative) repeated on top of
   every page, the report's title and the sheet's name above and "Page N of M" below. */
static void page_setup(const struct book *b, lxw_worksheet *ws, int head_row)
{
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    if (head_row >= 0)
        worksheet_repeat_rows(ws, (lxw_row_t)head_row, (lxw_row_t)head_row);
    worksheet_set_header(ws, b->page_header);
    worksheet_set_footer(ws, "&CPage &P of &N");
}

/* Rows of a long table that print: its top, and a note of how many more the sheet holds. */
#define PRINT_ROWS 40
/* Call paths that print: each takes several lines. */
#define PRINT_PATHS 20
/* Columns of a wide table that print (Hit count's runs and threads, say). */
#define PRINT_COLS 12

/*
 * Print rows 0..last_row and columns first_col..last_col of ws only, with the footer saying
 * that the top shown of total rows printed (what: "regions"); whoever wants every row prints
 * the sheet without its print range. Nothing changes when the whole table fits (shown ==
 * total and no column is left out).
 */
static void print_top(lxw_worksheet *ws, lxw_row_t last_row, lxw_col_t first_col,
                      lxw_col_t last_col, size_t shown, size_t total, const char *what)
{
    worksheet_print_area(ws, 0, first_col, last_row, last_col);
    if (shown >= total)
        return;
    char footer[256];
    snprintf(footer, sizeof footer,
             "&LPrinted: the top %zu of %zu %s; the sheet holds them all&CPage &P of &N", shown,
             total, what);
    worksheet_set_footer(ws, footer);
}

/* The page header for title: "&L" title "&R&A" (the sheet's name), its '&' doubled so that
   Excel does not read them as codes, cut to fit Excel's 255 characters. */
static void make_page_header(struct book *b, const char *title)
{
    char *v = text_visible(title, strlen(title), 1);
    char *o = b->page_header;
    o += sprintf(o, "&L");
    /* Room for "&R&A" and the terminator; whole characters only. */
    const char *end = b->page_header + 200;
    for (const char *p = v; *p && o < end; p++) {
        size_t len = 1;
        while (((unsigned char)p[len] & 0xc0) == 0x80)
            len++;
        if (o + len + (*p == '&') > end)
            break;
        if (*p == '&')
            *o++ = '&';
        memcpy(o, p, len);
        o += len;
        p += len - 1;
    }
    sprintf(o, "&R&A");
    free(v);
}

/* A native bar chart's value axis shown as the cells are: in the unit of its largest value
   (or --unit's), the number of ns stored being scaled by the number format. */
static void set_time_axis(const struct book *b, lxw_chart *ch, double largest_ns)
{
    struct time_shown s = time_shown(isfinite(largest_ns) ? largest_ns : 0, b->forced);
    if (s.decimals > 1)
        s.decimals = 1;
    char code[64];
    chart_axis_set_num_format(ch->x_axis, time_format(code, sizeof code, s, b->stored));
    /* At most five steps of 1, 2 or 5 times a power of ten: the viewers' own choice, up to
       nine labels such as "70.0 ms", ran into each other on a printed chart. */
    if (isfinite(largest_ns) && largest_ns > 0) {
        double want = largest_ns / 5, step = pow(10, floor(log10(want)));
        step *= want <= step ? 1 : want <= 2 * step ? 2 : want <= 5 * step ? 5 : 10;
        chart_axis_set_major_unit(ch->x_axis, step);
    }
}

/* Order of wrapped cells: by row. */
static int by_row(const void *a, const void *b)
{
    const struct wrapped *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

/* The printable part of a landscape page, in points: Letter's width and A4's height (the
   smaller of each), less libxlsxwriter's default margins (0.7 inch at the sides, 0.75 above
   and below). */
#define PAGE_WIDTH_PT ((11.0 - 1.4) * 72)
#define PAGE_HEIGHT_PT ((8.27 - 1.5) * 72)

/*
 * Set sw's page breaks: those asked for, and one at keep_first when rows keep_first..
 * keep_last would cross the end of a page. The estimate: the page is fit to the sheet's width
 * (its columns' widths, in pixels as Excel makes them, or the widest picture's), and each row
 * is 15 points tall, extra more before keep_first (wrapped rows); pages counted from row 0 or
 * the last break before keep_first.
 */
static void page_breaks(struct sheet_widths *sw, double extra)
{
    if (sw->keep_last > sw->keep_first) {
        double px = 0;
        for (size_t c = 0; c < sw->n; c++)
            px += floor(sw->w[c] * 7 + 5);
        if (sw->page_px > px)
            px = sw->page_px;
        double scale = px * 0.75 > PAGE_WIDTH_PT ? PAGE_WIDTH_PT / (px * 0.75) : 1;
        double page = PAGE_HEIGHT_PT / scale, from = 0;
        for (size_t i = 0; i < sw->nbreaks; i++)
            if (sw->breaks[i] <= sw->keep_first && sw->breaks[i] > from)
                from = sw->breaks[i];
        double top = 15.0 * ((double)sw->keep_first - from) + (from ? 0 : extra);
        double end = top + 15.0 * ((double)(sw->keep_last - sw->keep_first) + 1);
        /* 5 % to spare: the heights are estimates */
        if (fmod(top, page) + (end - top) > page * 0.95 && end - top < page * 0.95) {
            size_t k = sw->nbreaks++;
            for (; k > 0 && sw->breaks[k - 1] > sw->keep_first; k--)
                sw->breaks[k] = sw->breaks[k - 1];
            sw->breaks[k] = sw->keep_first;
        }
    }
    if (sw->nbreaks) {
        sw->breaks[sw->nbreaks] = 0;
        worksheet_set_h_pagebreaks(sw->ws, sw->breaks);
    }
}

/*
 * Set every measured column of every sheet to its width, with a little room around, and every
 * row with wrapped text to the height of its most lines: LibreOffice keeps the height a row is
 * written with, so a row left at one line would print its wrapped text over its neighbours.
 */
static void fit_columns(struct book *b)
{
    for (size_t i = 0; i < b->nsheets; i++) {
        struct sheet_widths *sw = &b->sheets[i];
        for (size_t c = 0; c < sw->n; c++) {
            if (sw->w[c] > 0) {
                sw->w[c] = column_width(sw->w[c]);
                worksheet_set_column(sw->ws, (lxw_col_t)c, (lxw_col_t)c, sw->w[c], NULL);
            } else {
                sw->w[c] = LXW_DEF_COL_WIDTH; /* nothing measured: the default stays */
            }
        }
        if (sw->nwraps)
            qsort(sw->wraps, sw->nwraps, sizeof *sw->wraps, by_row);
        double extra = 0; /* points the rows before keep_first take beyond one line each */
        for (size_t k = 0; k < sw->nwraps;) {
            lxw_row_t row = sw->wraps[k].row;
            unsigned lines = 1;
            for (; k < sw->nwraps && sw->wraps[k].row == row; k++) {
                const struct wrapped *x = &sw->wraps[k];
                double width = x->col < sw->n ? sw->w[x->col] : LXW_DEF_COL_WIDTH;
                unsigned l = wrap_lines(x->text, width - 1, x->scale);
                lines = l > lines ? l : lines;
                free(x->text);
            }
            if (lines > 1)
                worksheet_set_row(sw->ws, row, 15.0 * lines, NULL);
            if (row < sw->keep_first)
                extra += 15.0 * (lines - 1);
        }
        page_breaks(sw, extra);
        free(sw->wraps);
        free(sw->w);
    }
    free(b->sheets);
    b->sheets = NULL;
    b->nsheets = 0;
}

/* A row of bold column headers. */
static void put_headers(struct book *b, lxw_worksheet *ws, lxw_row_t r, const char *const *h,
                        size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_str(b, ws, r, (lxw_col_t)i, h[i], b->f.header);
}

/* A time column's header: "Mean" when each cell shows its unit, "Mean (ms)" under --unit ms. */
static const char *with_unit(const struct book *b, char *buf, size_t size, const char *name)
{
    if (b->forced)
        snprintf(buf, size, "%s (%s)", name, b->forced);
    else
        snprintf(buf, size, "%s", name);
    return buf;
}

/* A table's column headers: heads[k] points into h[k]. */
static void table_heads(const struct book *b, const struct table *t, char h[][48],
                        const char **heads)
{
    for (size_t k = 0; k < t->ncols; k++)
        heads[k] = column_header(h[k], sizeof h[k], &t->cols[k], b->stored, b->stored);
    for (size_t k = 0; k < t->ncols && !b->forced; k++)
        heads[k] = t->cols[k].name;
}

/* Row i of a table at sheet row `row`: each kind of column with its format; empty cells are
   left out. */
static void put_table_row(struct book *b, lxw_worksheet *ws, lxw_row_t row, const struct table *t,
                          size_t i, const struct text_style *style)
{
    struct cell c[TABLE_MAX_COLS];
    table_row(t, i, c);
    for (size_t k = 0; k < t->ncols; k++) {
        lxw_col_t col = (lxw_col_t)k;
        enum column_kind kind = t->cols[k].kind;
        if (c[k].kind == CELL_TEXT)
            put_str_cap(b, ws, row, col, c[k].s,
                        c[k].note                  ? b->f.note
                        : style && style[k].indent ? b->f.indent
                                                   : NULL,
                        style ? style[k].cap : WIDTH_NAMES);
        else if (c[k].kind == CELL_NONE && c[k].s && c[k].note)
            put_str(b, ws, row, col, c[k].s, b->f.note); /* no number: say why */
        else if (c[k].kind == CELL_INT)
            put_num(b, ws, row, col, (double)c[k].i, kind == COL_NUMBER ? NULL : b->f.count);
        else if (c[k].kind == CELL_NUM && (kind == COL_TOTAL_NS || kind == COL_COST_NS))
            put_time(b, ws, row, col, c[k].v);
        else if (c[k].kind == CELL_NUM)
            put_num(b, ws, row, col, c[k].v, kind == COL_SHARE ? b->f.pct : b->f.count);
    }
}

/* A whole table from row 0: its headers, then its rows. Returns its columns; *nrows gets its
   rows unless NULL. */
static size_t put_table(struct book *b, lxw_worksheet *ws, enum table_id id, size_t *nrows)
{
    struct table t;
    table_open(&t, b->m, id);
    char h[TABLE_MAX_COLS][48];
    const char *heads[TABLE_MAX_COLS];
    table_heads(b, &t, h, heads);
    put_headers(b, ws, 0, heads, t.ncols);
    for (size_t i = 0; i < t.nrows; i++)
        put_table_row(b, ws, (lxw_row_t)(i + 1), &t, i, NULL);
    if (nrows)
        *nrows = t.nrows;
    size_t ncols = t.ncols;
    table_close(&t);
    return ncols;
}

/* Create the shared formats. */
static void make_formats(struct book *b)
{
    lxw_workbook *wb = b->wb;
    b->f.bold = workbook_add_format(wb);
    format_set_bold(b->f.bold);
    /* The Summary's keys and values, at the top of their row: a key beside a value of several
       lines (Timing, Left out) at its first line, the value's text from the row's top (the row
       is made tall enough for the widest font a viewer may use, so the room left over is
       below the text, not above it). */
    b->f.key = workbook_add_format(wb);
    format_set_bold(b->f.key);
    format_set_align(b->f.key, LXW_ALIGN_VERTICAL_TOP);
    b->f.value = workbook_add_format(wb);
    format_set_text_wrap(b->f.value);
    format_set_align(b->f.value, LXW_ALIGN_VERTICAL_TOP);
    b->f.header = workbook_add_format(wb);
    format_set_bold(b->f.header);
    format_set_bottom(b->f.header, LXW_BORDER_THIN);
    format_set_text_wrap(b->f.header);
    format_set_align(b->f.header, LXW_ALIGN_VERTICAL_TOP);
    /* Over a matrix's numbers, which may sit in a wide column of the table above. */
    b->f.header_right = workbook_add_format(wb);
    format_set_bold(b->f.header_right);
    format_set_bottom(b->f.header_right, LXW_BORDER_THIN);
    format_set_text_wrap(b->f.header_right);
    format_set_align(b->f.header_right, LXW_ALIGN_RIGHT);
    b->f.title = workbook_add_format(wb);
    format_set_bold(b->f.title);
    format_set_font_size(b->f.title, 14);
    b->f.caption = workbook_add_format(wb);
    format_set_bold(b->f.caption);
    b->f.num = workbook_add_format(wb);
    format_set_num_format(b->f.num, "#,##0.000");
    b->f.pct = workbook_add_format(wb);
    format_set_num_format(b->f.pct, "0.00%");
    b->f.count = workbook_add_format(wb);
    format_set_num_format(b->f.count, "#,##0");
    b->f.wrap = workbook_add_format(wb);
    format_set_text_wrap(b->f.wrap);
    format_set_align(b->f.wrap, LXW_ALIGN_VERTICAL_TOP);
    b->f.long_name = workbook_add_format(wb);
    format_set_text_wrap(b->f.long_name);
    b->f.indent = workbook_add_format(wb);
    format_set_indent(b->f.indent, 1);
    b->f.indent_long = workbook_add_format(wb);
    format_set_indent(b->f.indent_long, 1);
    format_set_text_wrap(b->f.indent_long);
    b->f.note = workbook_add_format(wb);
    format_set_italic(b->f.note);
    b->f.aside = workbook_add_format(wb);
    format_set_italic(b->f.aside);
    b->f.ratio = workbook_add_format(wb);
    format_set_num_format(b->f.ratio, "0.0000");
    b->f.pvalue = workbook_add_format(wb);
    format_set_num_format(b->f.pvalue, "0.0000E+00");
    b->f.slower = workbook_add_format(wb);
    format_set_font_color(b->f.slower, 0x9C0006);
    format_set_bg_color(b->f.slower, 0xFFC7CE);
    b->f.faster = workbook_add_format(wb);
    format_set_font_color(b->f.faster, 0x006100);
    format_set_bg_color(b->f.faster, 0xC6EFCE);
}

/* Call cost: one row per region, the flat profile with per-run spread. */
static void sheet_call_cost(struct book *b)
{
    lxw_worksheet *ws = add_sheet(b, "Call cost", 1);
    struct table t;
    table_open(&t, b->m, TABLE_CALLCOST);
    char h[TABLE_MAX_COLS][48];
    const char *heads[TABLE_MAX_COLS];
    table_heads(b, &t, h, heads);
    size_t ncols = t.ncols, n = t.nrows;
    if (ws->optimize) /* streamed: headers first, an autofilter for the table */
        put_headers(b, ws, 0, heads, ncols);
    /* The text columns that print (print_top below) wrap as the Summary's do, so that the
       page, one wide, keeps its text at 8 pt or more; a source file is set off from the
       median before it ("2.56 us /src/a.c", not "2.56 us/src/a.c"). */
    struct text_style style[TABLE_MAX_COLS];
    for (size_t k = 0; k < ncols; k++)
        style[k] = (struct text_style){k == CC_SHORT || k == CC_FILE ? WIDTH_SUMMARY : WIDTH_NAMES,
                                       k == CC_FILE};
    for (size_t i = 0; i < n; i++)
        put_table_row(b, ws, (lxw_row_t)(i + 1), &t, i, style);
    table_close(&t);
    if (n > 0 && ws->optimize) {
        worksheet_autofilter(ws, 0, 0, (lxw_row_t)n, (lxw_col_t)(ncols - 1));
        lxw_conditional_format bar = {0};
        bar.type = LXW_CONDITIONAL_DATA_BAR;
        worksheet_conditional_format_range(ws, 1, CC_TOTAL_SHARE, (lxw_row_t)n, CC_TOTAL_SHARE,
                                           &bar);
        worksheet_conditional_format_range(ws, 1, CC_SELF_SHARE, (lxw_row_t)n, CC_SELF_SHARE, &bar);
    } else if (n > 0) {
        lxw_table_column cols[32];
        lxw_table_column *colp[33];
        for (size_t i = 0; i < ncols; i++) {
            memset(&cols[i], 0, sizeof cols[i]);
            cols[i].header = (char *)(uintptr_t)heads[i];
            cols[i].header_format = b->f.header;
            colp[i] = &cols[i];
            measure(b, ws, (lxw_col_t)i, header_width(heads[i]));
            note_wrap(b, ws, 0, (lxw_col_t)i, heads[i], 1.3);
        }
        colp[ncols] = NULL;
        lxw_table_options opt = {0};
        static char table_name[] = "CallCost";
        opt.name = table_name;
        opt.style_type = LXW_TABLE_STYLE_TYPE_LIGHT;
        opt.style_type_number = 9;
        opt.columns = colp;
        worksheet_add_table(ws, 0, 0, (lxw_row_t)n, (lxw_col_t)(ncols - 1), &opt);
        lxw_conditional_format bar = {0};
        bar.type = LXW_CONDITIONAL_DATA_BAR;
        worksheet_conditional_format_range(ws, 1, CC_TOTAL_SHARE, (lxw_row_t)n, CC_TOTAL_SHARE,
                                           &bar);
        worksheet_conditional_format_range(ws, 1, CC_SELF_SHARE, (lxw_row_t)n, CC_SELF_SHARE, &bar);
    } else {
        if (!ws->optimize)
            put_headers(b, ws, 0, heads, ncols);
        put_str(b, ws, 1, 0, "no regions", b->f.note);
    }
    worksheet_freeze_panes(ws, 1, 1);
    page_setup(b, ws, 0);
    /* On paper: the top regions by their short names, with calls, total and self time, the
       mean and median cost, and where each function is (source file and line); the rest of
       the columns are in the sheet. Half-inch side margins (Excel's are 0.7) keep those ten
       columns, with names and paths of 40 characters, at 8 pt or more on Letter paper. */
    worksheet_set_margins(ws, 0.5, 0.5, -1, -1);
    size_t top = n < PRINT_ROWS ? n : PRINT_ROWS;
    print_top(ws, (lxw_row_t)(top ? top : 1), CC_SHORT, CC_LINE, top, n, "regions");
}

/* A region x column matrix below a sheet's table: what its columns are and what each cell holds. */
struct matrix {
    size_t ncols;
    /* Column k's head (the caller frees it). */
    char *(*head)(const struct model *m, size_t k);
    /* The value of region r in column k: a number in format, or ns when format is NULL. */
    double (*cell)(const struct book *b, const struct region *r, size_t k);
    lxw_format *format;
};

static lxw_row_t put_matrix_from(struct book *b, lxw_worksheet *ws, lxw_row_t top,
                                 const char *title, const struct matrix *mx, const size_t *rank,
                                 size_t n, size_t from);

/* Hit count's columns past Calls: "Run 1"... then "Thread: <name>" per thread key. */
static char *hit_head(const struct model *m, size_t k)
{
    if (k < m->nruns) {
        char buf[32];
        snprintf(buf, sizeof buf, "Run %zu", k + 1);
        return xstrdup(buf);
    }
    const char *key = m->keys[k - m->nruns];
    char *name = utf8_repair(key, strlen(key));
    size_t len = strlen(name) + 16;
    char *head = xmalloc(len);
    snprintf(head, len, "Thread: %s", name);
    free(name);
    return head;
}

/* Calls of r in run k, or past the runs in the threads of key k - nruns; none (an empty
   cell) where a left-out function's calls were not counted. */
static double hit_cell(const struct book *b, const struct region *r, size_t k)
{
    size_t runs = b->m->nruns;
    struct region_col c = k < runs ? region_run(r, k) : region_key(r, k - runs);
    if (r->left_out && c.calls == 0)
        return NAN;
    return (double)c.calls;
}

/*
 * Hit count: calls per region in total, per run and per thread (by thread name). Excel stops
 * at LXW_COL_MAX columns: the runs and thread names that do not fit beside Region and Calls
 * continue in blocks below the table, each with its Region column (put_matrix_from).
 */
static void sheet_hit_count(struct book *b, const size_t *rank, size_t n)
{
    const struct model *m = b->m;
    lxw_worksheet *ws = add_sheet(b, "Hit count", 1);
    struct matrix hits = {m->nruns + m->nkeys, hit_head, hit_cell, b->f.count};
    size_t fit = hits.ncols < LXW_COL_MAX - 2 ? hits.ncols : LXW_COL_MAX - 2;
    put_str(b, ws, 0, 0, "Region", b->f.header);
    put_str(b, ws, 0, 1, "Calls", b->f.header);
    for (size_t k = 0; k < fit; k++) {
        char *head = hit_head(m, k);
        put_str(b, ws, 0, (lxw_col_t)(2 + k), head, b->f.header);
        free(head);
    }
    for (size_t i = 0; i < n; i++) {
        struct region *r = &m->regions[rank[i]];
        lxw_row_t row = (lxw_row_t)(i + 1);
        put_str(b, ws, row, 0, r->display, NULL);
        if (region_uncounted(r))
            put_str(b, ws, row, 1,
                    left_out_no_hooks(r->left_out) ? "not instrumented: not counted"
                                                   : "left out: not counted",
                    b->f.note);
        else
            put_num(b, ws, row, 1, (double)r->cost.n, b->f.count);
        for (size_t k = 0; k < fit; k++)
            put_num(b, ws, row, (lxw_col_t)(2 + k), hit_cell(b, r, k), b->f.count);
    }
    if (n > 0)
        worksheet_autofilter(ws, 0, 0, (lxw_row_t)n, (lxw_col_t)(fit + 1));
    else
        put_str(b, ws, 1, 0, "no regions", b->f.note);
    if (fit < hits.ncols)
        put_matrix_from(b, ws, (lxw_row_t)((n ? n : 1) + 3), "Calls", &hits, rank, n, fit);
    worksheet_freeze_panes(ws, 1, 1);
    page_setup(b, ws, 0);
    size_t top = n < PRINT_ROWS ? n : PRINT_ROWS, last = fit + 1;
    print_top(ws, (lxw_row_t)(top ? top : 1), 0, last < PRINT_COLS ? last : PRINT_COLS - 1, top, n,
              "regions");
    lxw_conditional_format bar = {0};
    bar.type = LXW_CONDITIONAL_DATA_BAR;
    if (n > 0)
        worksheet_conditional_format_range(ws, 1, 1, (lxw_row_t)n, 1, &bar);
}

/*
 * Write columns from.. of the matrix at row top: its title, a "Region" head and the columns'
 * heads, then one row per region of rank[0..n). Excel stops at LXW_COL_MAX columns: a matrix
 * wider than that continues in blocks below, each with its Region column and a title that
 * names its first and last column. Returns the row where the next matrix goes, two rows below.
 */
static lxw_row_t put_matrix_from(struct book *b, lxw_worksheet *ws, lxw_row_t top,
                                 const char *title, const struct matrix *mx, const size_t *rank,
                                 size_t n, size_t from)
{
    do {
        size_t to = mx->ncols - from < LXW_COL_MAX - 1 ? mx->ncols : from + LXW_COL_MAX - 1;
        if (from == 0) {
            put_str(b, ws, top, 0, title, b->f.bold);
        } else {
            char *first = mx->head(b->m, from), *last = mx->head(b->m, to - 1);
            size_t len = strlen(title) + strlen(first) + strlen(last) + 64;
            char *t = xmalloc(len);
            snprintf(t, len, "%s, continued (Excel's %d columns): %s to %s", title, LXW_COL_MAX,
                     first, last);
            put_str(b, ws, top, 0, t, b->f.bold);
            free(t);
            free(first);
            free(last);
        }
        put_str(b, ws, top + 1, 0, "Region", b->f.header);
        for (size_t k = from; k < to; k++) {
            char *head = mx->head(b->m, k);
            put_str(b, ws, top + 1, (lxw_col_t)(k - from + 1), head, b->f.header_right);
            free(head);
        }
        for (size_t i = 0; i < n; i++) {
            const struct region *r = &b->m->regions[rank[i]];
            lxw_row_t row = (lxw_row_t)(top + 2 + i);
            put_str(b, ws, row, 0, r->display, NULL);
            for (size_t k = from; k < to; k++)
                if (mx->format)
                    put_num(b, ws, row, (lxw_col_t)(k - from + 1), mx->cell(b, r, k), mx->format);
                else
                    put_time(b, ws, row, (lxw_col_t)(k - from + 1), mx->cell(b, r, k));
        }
        top = (lxw_row_t)(top + n + 4);
        from = to;
    } while (from < mx->ncols);
    return top;
}

/* The whole matrix at row top (put_matrix_from its first column). */
static lxw_row_t put_matrix(struct book *b, lxw_worksheet *ws, lxw_row_t top, const char *title,
                            const struct matrix *mx, const size_t *rank, size_t n)
{
    return put_matrix_from(b, ws, top, title, mx, rank, n, 0);
}

/* "Run 1", "Run 2"... */
static char *run_head(const struct model *m, size_t k)
{
    (void)m;
    char buf[32];
    snprintf(buf, sizeof buf, "Run %zu", k + 1);
    return xstrdup(buf);
}

/* A thread name (across runs), repaired for display. */
static char *thread_head(const struct model *m, size_t k)
{
    return utf8_repair(m->keys[k], strlen(m->keys[k]));
}

/* Mean cost per call of r in run k. */
static double run_mean_cell(const struct book *b, const struct region *r, size_t k)
{
    (void)b;
    return model_run_mean(r, k);
}

/* Calls of r in run k; none where a left-out function's calls were not counted. */
static double run_calls_cell(const struct book *b, const struct region *r, size_t k)
{
    (void)b;
    uint64_t calls = region_run(r, k).calls;
    return r->left_out && calls == 0 ? NAN : (double)calls;
}

/* Total time of r in the threads of name k. */
static double key_total_cell(const struct book *b, const struct region *r, size_t k)
{
    (void)b;
    return region_key(r, k).sum;
}

/* Self time of r in the threads of name k. */
static double key_self_cell(const struct book *b, const struct region *r, size_t k)
{
    (void)b;
    return region_key(r, k).sum2;
}

/* Runs: one row per run, then region x run matrices of mean cost and of calls. */
static void sheet_runs(struct book *b, const size_t *rank, size_t n)
{
    const struct model *m = b->m;
    lxw_worksheet *ws = add_sheet(b, "Runs", 1);
    size_t nh = put_table(b, ws, TABLE_RUNS, NULL);
    worksheet_autofilter(ws, 0, 0, (lxw_row_t)m->nruns, (lxw_col_t)(nh - 1));
    worksheet_freeze_panes(ws, 1, 0);
    page_setup(b, ws, 0);

    /* Two matrices below the table: mean cost per call and calls, one column per run. */
    lxw_row_t top = (lxw_row_t)(m->nruns + 3);
    char title[96];
    char h[48];
    snprintf(title, sizeof title, "%s, region x run",
             with_unit(b, h, sizeof h, "Mean cost per call"));
    struct matrix mean = {m->nruns, run_head, run_mean_cell, NULL};
    top = put_matrix(b, ws, top, title, &mean, rank, n);
    struct matrix calls = {m->nruns, run_head, run_calls_cell, b->f.count};
    put_matrix(b, ws, top, "Calls, region x run", &calls, rank, n);
    /* On paper: every run, then the top of the first matrix. */
    size_t shown = n < PRINT_ROWS ? n : PRINT_ROWS;
    size_t cols = m->nruns < PRINT_COLS ? m->nruns : PRINT_COLS;
    print_top(ws, (lxw_row_t)(m->nruns + 4 + shown), 0, (lxw_col_t)(nh - 1 > cols ? nh - 1 : cols),
              shown, n, "regions of the matrices");
}

/* Threads: one row per thread of each run, then total and self time per region and thread. */
static void sheet_threads(struct book *b, const size_t *rank, size_t nregions)
{
    const struct model *m = b->m;
    lxw_worksheet *ws = add_sheet(b, "Threads", 1);
    size_t nh = put_table(b, ws, TABLE_THREADS, NULL);
    worksheet_autofilter(ws, 0, 0, (lxw_row_t)m->nthreads, (lxw_col_t)(nh - 1));
    worksheet_freeze_panes(ws, 1, 0);
    page_setup(b, ws, 0);

    /* Per thread name (across runs), as in Hit count: where each thread's time went. */
    lxw_row_t top = (lxw_row_t)(m->nthreads + 3);
    char title[96];
    char h[48];
    snprintf(title, sizeof title, "%s, region x thread", with_unit(b, h, sizeof h, "Total time"));
    struct matrix total = {m->nkeys, thread_head, key_total_cell, NULL};
    top = put_matrix(b, ws, top, title, &total, rank, nregions);
    snprintf(title, sizeof title, "%s, region x thread", with_unit(b, h, sizeof h, "Self time"));
    struct matrix self = {m->nkeys, thread_head, key_self_cell, NULL};
    put_matrix(b, ws, top, title, &self, rank, nregions);
    /* On paper: every thread, then the top of the first matrix. */
    size_t shown = nregions < PRINT_ROWS ? nregions : PRINT_ROWS;
    size_t cols = m->nkeys < PRINT_COLS ? m->nkeys : PRINT_COLS;
    print_top(ws, (lxw_row_t)(m->nthreads + 4 + shown), 0,
              (lxw_col_t)(nh - 1 > cols ? nh - 1 : cols), shown, nregions,
              "regions of the matrices");
}

/* Call tree: exact caller -> callee edges, heaviest first. */
static void sheet_call_tree(struct book *b)
{
    const struct model *m = b->m;
    lxw_worksheet *ws = add_sheet(b, "Call tree", 1);
    size_t n;
    size_t nh = put_table(b, ws, TABLE_CALLTREE, &n);
    if (n == 0)
        put_str(b, ws, 1, 0,
                m->nedges ? "no edges"
                          : "no caller information (seed-form or format 1-2 summary runs)",
                b->f.note);
    else
        worksheet_autofilter(ws, 0, 0, (lxw_row_t)n, (lxw_col_t)(nh - 1));
    worksheet_freeze_panes(ws, 1, 0);
    page_setup(b, ws, 0);
    size_t top = n < PRINT_ROWS ? n : PRINT_ROWS;
    print_top(ws, (lxw_row_t)(top ? top : 1), 0, (lxw_col_t)(nh - 1), top, n, "edges");
}

static lxw_chart *bar_chart(struct book *b, const char *sheet, lxw_row_t first, lxw_col_t col,
                            size_t n, const char *title, const char *axis);

#define PATHS_SHOWN 50

/* Call paths: the calling contexts with the most self time (where the time is spent, and
   through which callers), with a native chart of the heaviest ones. */
static void sheet_call_paths(struct book *b, const struct cct *t)
{
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, "Call paths");
    char h[3][48];
    const char *heads[] = {"Call path", "Depth",
                           "Calls",     with_unit(b, h[0], sizeof h[0], "Self"),
                           "Self %",    with_unit(b, h[1], sizeof h[1], "Total"),
                           "Region"};
    size_t nh = sizeof heads / sizeof heads[0];
    put_headers(b, ws, 0, heads, nh);
    size_t np;
    double all;
    uint32_t *nodes = paths_heaviest(t, &np, &all);
    size_t shown = np < PATHS_SHOWN ? np : PATHS_SHOWN;
    /* Frames by their short names, as the other sheets and the charts show them. */
    const char **name_of = xcalloc(t && t->nnames ? t->nnames : 1, sizeof *name_of);
    for (size_t i = 0; t && i < t->nnames; i++) {
        size_t r = model_find(b->m, t->names[i], t->name_lens[i]);
        name_of[i] = r != SIZE_MAX ? model_short(&b->m->regions[r]) : NULL;
    }
    for (size_t i = 0; i < shown; i++) {
        const struct cct_node *node = &t->nodes[nodes[i]];
        lxw_row_t row = (lxw_row_t)(i + 1);
        size_t depth = 0;
        char *text = paths_text(t, nodes[i], name_of, &depth);
        char *region = region_display(t->names[node->name], t->name_lens[node->name]);
        put_str(b, ws, row, 0, text, NULL);
        put_num(b, ws, row, 1, (double)(depth - 1), b->f.count);
        if (node->uncounted && node->calls == 0 && node->never == 0)
            put_str(b, ws, row, 2, "not counted", b->f.note);
        else
            put_num(b, ws, row, 2, (double)node->calls, b->f.count);
        put_time(b, ws, row, 3, node->self_ns);
        put_num(b, ws, row, 4, all > 0 ? node->self_ns / all : NAN, b->f.pct);
        put_time(b, ws, row, 5, node->total_ns);
        put_str(b, ws, row, 6, region, NULL);
        free(text);
        free(region);
    }
    if (shown == 0) {
        put_str(b, ws, 1, 0, "no call paths (no rows with self time)", b->f.note);
    } else {
        size_t top = shown < b->ri->top ? shown : b->ri->top;
        if (top > 15)
            top = 15;
        char title[96];
        snprintf(title, sizeof title, "Heaviest call paths: %s",
                 with_unit(b, h[2], sizeof h[2], "self time"));
        lxw_chart *ch = bar_chart(b, "Call paths", 1, 3, top, title, "self time");
        set_time_axis(b, ch, t->nodes[nodes[0]].self_ns);
        lxw_chart_options co = {0};
        co.x_scale = 1.8;
        co.y_scale = 1.6;
        worksheet_insert_chart_opt(ws, 1, (lxw_col_t)nh + 1, ch, &co);
    }
    if (np > shown) {
        char note[96];
        snprintf(note, sizeof note, "%zu more call paths with self time not listed", np - shown);
        put_str(b, ws, (lxw_row_t)shown + 2, 0, note, b->f.note);
    }
    free(nodes);
    free(name_of);
    worksheet_freeze_panes(ws, 1, 1);
    page_setup(b, ws, 0);
    /* On paper: the heaviest paths of the table (its chart beside it would shrink the
       page). */
    size_t printed = shown < PRINT_PATHS ? shown : PRINT_PATHS;
    print_top(ws, (lxw_row_t)(printed ? printed : 1), 0, (lxw_col_t)(nh - 1), printed, np,
              "call paths");
}

/* One table of leak sites (the top of them) from row on; returns the row after it. */
static lxw_row_t put_leak_sites(struct book *b, lxw_worksheet *ws, lxw_row_t row,
                                const struct leak_site *sites, size_t top, const char *none)
{
    static const char *const heads[] = {"Site",   "Function", "Runs",
                                        "Blocks", "Bytes",    "Stack (allocation < caller < ...)"};
    put_headers(b, ws, row++, heads, 6);
    for (size_t i = 0; i < top; i++, row++) {
        put_str(b, ws, row, 0, sites[i].site, NULL);
        put_str(b, ws, row, 1, sites[i].function, NULL);
        put_num(b, ws, row, 2, (double)sites[i].runs, b->f.count);
        put_num(b, ws, row, 3, (double)sites[i].blocks, b->f.count);
        put_num(b, ws, row, 4, (double)sites[i].bytes, b->f.count);
        put_str(b, ws, row, 5, sites[i].stack, NULL);
    }
    if (top == 0)
        put_str(b, ws, row++, 0, none, b->f.note);
    return row;
}

/* Memory: the largest leak sites with a chart, the runtime's own blocks, then each run's
   findings and bytes per region. */
static void sheet_memory(struct book *b)
{
    const struct model *m = b->m;
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, "Memory");
    lxw_row_t row = 0;
    char buf[4200];
    put_str(b, ws, row++, 0, "Memory checks", b->f.title);
    put_str(b, ws, row++, 0,
            "From the runs' memory sections: PROFILER_MEM_ macros, <profreport_new.hpp> or "
            "libprofreport-malloc.so. Sites are file:line (with their function and, for leaks, "
            "the allocation's stack), or module+0xoffset for addr2line.",
            b->f.note);
    row++;
    size_t nsites;
    struct leak_site *sites = leak_sites(m, "leak", &nsites);
    size_t top = nsites < b->ri->top ? nsites : b->ri->top;
    snprintf(buf, sizeof buf, "Largest leak sites, all runs (top %zu of %zu)", top, nsites);
    put_str(b, ws, row++, 0, buf, b->f.bold);
    lxw_row_t head = row;
    row = put_leak_sites(b, ws, row, sites, top, "no leaks");
    if (top > 0) {
        lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_BAR);
        lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(s, "Memory", head + 1, 0, (lxw_row_t)(head + top), 0);
        chart_series_set_values(s, "Memory", head + 1, 4, (lxw_row_t)(head + top), 4);
        chart_title_set_name(ch, "Largest leak sites (bytes never freed)");
        chart_axis_set_name(ch->x_axis, "bytes");
        chart_axis_set_reverse(ch->y_axis); /* the largest on top */
        chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
        lxw_chart_options place = {0};
        place.x_scale = 1.4;
        place.y_scale = 1.2;
        worksheet_insert_chart_opt(ws, 0, 12, ch, &place);
    }
    free(sites);
    /* The runtime's own blocks: not leaks of the program, so neither in the totals nor charted. */
    sites = leak_sites(m, "runtime-reachable", &nsites);
    if (nsites) {
        top = nsites < b->ri->top ? nsites : b->ri->top;
        row++;
        snprintf(buf, sizeof buf,
                 "Runtime, still reachable at exit (top %zu of %zu): blocks the dynamic loader "
                 "and the C/C++ libraries keep for the process's life; not leaks",
                 top, nsites);
        put_str(b, ws, row++, 0, buf, b->f.bold);
        row = put_leak_sites(b, ws, row, sites, top, "");
    }
    free(sites);

    static const char *const heads[] = {"Finding",      "Thread",     "Region",     "Site",
                                        "Count",        "Bytes",      "Alloc kind", "Free kind",
                                        "Other thread", "Other site", "Function",   "Stack"};
    static const char *const region_heads[] = {"Region", "Thread", "Allocations", "Bytes"};
    for (size_t k = 0; k < m->nruns; k++) {
        if (!m->runs[k].has_memory)
            continue;
        row++;
        snprintf(buf, sizeof buf, "Run %zu: %s", k + 1, m->runs[k].file);
        put_str(b, ws, row++, 0, buf, b->f.bold);
        put_headers(b, ws, row++, heads, 12);
        size_t found = 0;
        for (size_t i = 0; i < m->nmem; i++) {
            const struct mem_rec *r = &m->mem[i];
            if (r->run != k || strcmp(r->kind, "region-bytes") == 0)
                continue;
            put_str(b, ws, row, 0, r->kind, NULL);
            if (r->thread)
                put_num(b, ws, row, 1, r->thread, b->f.count);
            put_str(b, ws, row, 2, r->region, NULL);
            put_str(b, ws, row, 3, r->site, NULL);
            put_num(b, ws, row, 4, (double)r->count, b->f.count);
            put_num(b, ws, row, 5, (double)r->bytes, b->f.count);
            put_str(b, ws, row, 6, r->alloc_kind, NULL);
            put_str(b, ws, row, 7, r->free_kind, NULL);
            if (r->other_thread)
                put_num(b, ws, row, 8, r->other_thread, b->f.count);
            put_str(b, ws, row, 9, r->other_site, NULL);
            put_str(b, ws, row, 10, r->function, NULL);
            put_str(b, ws, row, 11, r->stack, NULL);
            row++;
            found++;
        }
        if (!found)
            put_str(b, ws, row++, 0, "no findings", b->f.note);
        row++;
        snprintf(buf, sizeof buf, "Allocations per region, run %zu", k + 1);
        put_str(b, ws, row++, 0, buf, b->f.bold);
        put_headers(b, ws, row++, region_heads, 4);
        for (size_t i = 0; i < m->nmem; i++) {
            const struct mem_rec *r = &m->mem[i];
            if (r->run != k || strcmp(r->kind, "region-bytes") != 0)
                continue;
            put_str(b, ws, row, 0, r->region[0] ? r->region : "(no region)",
                    r->region[0] ? NULL : b->f.note);
            if (r->thread)
                put_num(b, ws, row, 1, r->thread, b->f.count);
            put_num(b, ws, row, 2, (double)r->count, b->f.count);
            put_num(b, ws, row, 3, (double)r->bytes, b->f.count);
            row++;
        }
    }
    page_setup(b, ws, -1);
}

/* The message of the "cut" warning. */
static void cut_message(char *buf, size_t size, unsigned long cut)
{
    snprintf(buf, size, "%lu strings longer than Excel's %d-character cell limit were cut", cut,
             CELL_MAX);
}

/* Warnings: everything that went wrong, or "none"; cut strings cut in the other sheets. */
static void sheet_warnings(struct book *b, lxw_worksheet *ws, unsigned long cut)
{
    const struct model *m = b->m;
    const char *heads[] = {"Where", "Kind", "Count", "Message"};
    put_headers(b, ws, 0, heads, 4);
    lxw_row_t row = 1;
    for (size_t i = 0; i < m->nwarnings; i++, row++) {
        struct warning_rec *w = &m->warnings[i];
        put_str(b, ws, row, 0, w->where, NULL);
        put_str(b, ws, row, 1, w->kind, NULL);
        put_num(b, ws, row, 2, (double)w->count, b->f.count);
        put_str(b, ws, row, 3, w->message, b->f.wrap);
    }
    if (cut) {
        char msg[128];
        cut_message(msg, sizeof msg, cut);
        put_str(b, ws, row, 0, "workbook", NULL);
        put_str(b, ws, row, 1, "cut", NULL);
        put_num(b, ws, row, 2, (double)cut, b->f.count);
        put_str(b, ws, row++, 3, msg, b->f.wrap);
    }
    if (b->lost) {
        char msg[200 + sizeof b->lost_in];
        snprintf(msg, sizeof msg, "%lu cells past Excel's %d rows or %d columns were left out (%s)",
                 b->lost, LXW_ROW_MAX, LXW_COL_MAX, b->lost_in);
        put_str(b, ws, row, 0, "workbook", NULL);
        put_str(b, ws, row, 1, "cut", NULL);
        put_num(b, ws, row, 2, (double)b->lost, b->f.count);
        put_str(b, ws, row++, 3, msg, b->f.wrap);
    }
    if (b->ri->charts_note) {
        put_str(b, ws, row, 0, "charts", NULL);
        put_str(b, ws, row, 1, "charts", NULL);
        put_num(b, ws, row, 2, 1, b->f.count);
        put_str(b, ws, row++, 3, b->ri->charts_note, b->f.wrap);
    }
    if (row == 1)
        put_str(b, ws, 1, 0, "none", b->f.note);
    worksheet_freeze_panes(ws, 1, 0);
    page_setup(b, ws, 0);
}

/* A key/value line of the Summary sheet. */
static void kv(struct book *b, lxw_worksheet *ws, lxw_row_t *row, const char *key,
               const char *value)
{
    put_str(b, ws, *row, 0, key, b->f.key);
    put_str_cap(b, ws, *row, 1, value, b->f.value, WIDTH_SUMMARY);
    (*row)++;
}

static void kv_num(struct book *b, lxw_worksheet *ws, lxw_row_t *row, const char *key, double v,
                   lxw_format *f)
{
    put_str(b, ws, *row, 0, key, b->f.key);
    put_num(b, ws, *row, 1, v, f);
    (*row)++;
}

/* A native bar chart of one Call cost / Hit count column for the top regions. */
static lxw_chart *bar_chart(struct book *b, const char *sheet, lxw_row_t first, lxw_col_t col,
                            size_t n, const char *title, const char *axis)
{
    lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_BAR);
    lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
    lxw_row_t last = (lxw_row_t)(first + n - 1);
    chart_series_set_categories(s, sheet, first, 0, last, 0);
    chart_series_set_values(s, sheet, first, col, last, col);
    set_chart_title(ch, title);
    chart_axis_set_name(ch->x_axis, axis);
    chart_axis_set_reverse(ch->y_axis); /* heaviest region on top */
    chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
    return ch;
}

/* Summary: what was read, the command line, the top regions and the native charts. */
/*
 * The hooks' measured cost of a call over the sampled runs' threads (ThreadCpu's hook, FORMAT.md
 * 1.2), their mean in ns, into *mean; *n the measurements (0: none), *hot the samples that made
 * them and *half the mean's 95 % half-width, both 0 when a measuring thread does not say its
 * count (older files). A thread that took its run's pooled figure (its count above its own
 * overhead) restates its run's other threads' samples: a run's pooled figure counts once, the
 * one of most samples, and only where none of its threads measured its own.
 */
static void hook_measure(const struct model *m, double *mean, double *n, double *hot, double *half)
{
    double sum = 0, var = 0, count = 0, k = 0;
    int bound = 1;
    double *pool_hot = xcalloc(m->nruns ? m->nruns : 1, sizeof *pool_hot);
    double *pool_ns = xcalloc(m->nruns ? m->nruns : 1, sizeof *pool_ns);
    unsigned char *own = xcalloc(m->nruns ? m->nruns : 1, 1);
    for (size_t i = 0; i < m->nthreads; i++) {
        const struct thread_rec *t = &m->threads[i];
        if (!(m->runs[t->run].period_ns > 0) || !(t->hook_ns > 0))
            continue;                 /* 0: too few of its hooks' samples to measure them */
        if (thread_hooks_pooled(t)) { /* NaN: an older file, its own */
            if (t->hook_samples > pool_hot[t->run]) {
                pool_hot[t->run] = t->hook_samples;
                pool_ns[t->run] = t->hook_ns;
            }
            continue;
        }
        own[t->run] = 1;
        sum += t->hook_ns;
        k++;
        /* a count of samples: its relative error is 1 / sqrt of it */
        if (t->hook_samples > 0) {
            var += t->hook_ns * t->hook_ns / t->hook_samples;
            count += t->hook_samples;
        } else
            bound = 0;
    }
    for (size_t r = 0; r < m->nruns; r++)
        if (!own[r] && pool_hot[r] > 0) {
            sum += pool_ns[r];
            k++;
            var += pool_ns[r] * pool_ns[r] / pool_hot[r];
            count += pool_hot[r];
        }
    free(pool_hot);
    free(pool_ns);
    free(own);
    *n = k;
    *mean = k > 0 ? sum / k : 0;
    *hot = k > 0 && bound ? count : 0;
    *half = k > 0 && bound ? 1.96 * sqrt(var) / k : 0;
}

/*
 * How the runs' times were measured, in words: every call timed, or (format 4 summary runs
 * with Timing,sampled) calls counted and time sampled, with the samples that landed in the
 * collector's own code (left out of every region) and outside every region.
 */
static void timing_summary(const struct model *m, char *buf, size_t size)
{
    double samples = 0, overhead = 0, outside = 0, period = 0;
    double hook_mean, hook_n, hook_hot, hook_half;
    hook_measure(m, &hook_mean, &hook_n, &hook_hot, &hook_half);
    double cost = 0, cost_samples = 0; /* of the threads that say what their samples cost */
    size_t sampled = 0, sampling_threads = 0, switched = 0, calibrated = 0;
    double overflow = 0; /* the calibrated runs' mean cost of an overflow */
    double asked = 0;    /* the period asked for, where a dear overflow lengthened it */
    size_t lengthened = 0;
    const char *method = NULL;
    for (size_t k = 0; k < m->nruns; k++)
        if (m->runs[k].sampling) {
            sampled++;
            method = m->runs[k].sampling;
            period = m->runs[k].period_ns;
            if (m->runs[k].period_asked_ns > 0 && m->runs[k].period_asked_ns < period) {
                lengthened++;
                asked = m->runs[k].period_asked_ns;
            }
            if (m->runs[k].overflow_ns > 0) {
                calibrated++;
                overflow += m->runs[k].overflow_ns;
            }
        }
    for (size_t i = 0; i < m->nthreads; i++) {
        const struct thread_rec *t = &m->threads[i];
        double p = m->runs[t->run].period_ns;
        if (p > 0 && isfinite(t->samples)) {
            /* a sample stands for the period less what taking it cost, or for a CPU-time
               timer's its share of the thread's CPU time less that (FORMAT.md 1.2) */
            double net = thread_sample_ns(p, t), taking = thread_sampling_ns(p, t);
            samples += t->samples * net + taking;
            if (taking > 0) {
                cost += taking;
                cost_samples += t->samples;
            }
            overhead += t->overhead * net;
            outside += t->outside * net;
            /* a perf run's thread that took timer samples traded its event for the timer */
            const char *how = m->runs[t->run].sampling;
            sampling_threads++;
            switched += t->timer_samples > 0 && how && strcmp(how, "perf-task-clock") == 0;
        }
    }
    if (!sampled) {
        snprintf(buf, size, "every call timed exactly (a clock read at its start and end)");
        return;
    }
    char a[32], c[32], d[32], e[32], h[32], k[32], q[32], taking[448] = "", hook_text[256] = "";
    char traded[256] = "";
    if (switched)
        snprintf(traded, sizeof traded,
                 "; %zu of %zu threads traded it for a CPU-time timer, as they switched "
                 "threads once per 62.5 us of their CPU time or more often and each switch "
                 "costs more with a perf event",
                 switched, sampling_threads);
    char hb[32], bound_text[96] = "";
    if (hook_n > 0 && hook_hot > 0)
        snprintf(bound_text, sizeof bound_text, ": %.0f of them, +/- %s at 95 %%", hook_hot,
                 time_text(hb, sizeof hb, hook_half, NULL));
    if (hook_n > 0)
        snprintf(hook_text, sizeof hook_text,
                 "%s (measured by those samples%s), taken out of Wall for each call inside a "
                 "timed one",
                 time_text(h, sizeof h, hook_mean, NULL), bound_text);
    char o[32], dear[160] = "", longer[256] = "", w[32];
    if (lengthened)
        snprintf(longer, sizeof longer,
                 "; in %zu of them lengthened from %s, as an overflow of the perf event cost "
                 "more than a tenth of that; PROFILER_SAMPLE_PERIOD sets it",
                 lengthened, time_text(w, sizeof w, asked, NULL));
    if (cost_samples > 0 && calibrated) {
        /* a dear one (a hypervisor's interrupts) slows the program by its share of the period:
           how to make it cheaper */
        double share = overflow / (double)calibrated / period;
        if (share >= 0.1)
            snprintf(dear, sizeof dear,
                     "Taking the samples slowed the program by about %.0f %% "
                     "(PROFILER_SAMPLE_PERIOD=1ms or PROFILER_SAMPLER=timer would make that "
                     "smaller). ",
                     100 * share);
        snprintf(taking, sizeof taking,
                 "%s taking the samples (%s a sample, measured at each: at least the %s an "
                 "overflow of the perf event cost a thread, measured at start), out of every "
                 "time; ",
                 time_text(k, sizeof k, cost, NULL),
                 time_text(q, sizeof q, cost / cost_samples, NULL),
                 time_text(o, sizeof o, overflow / (double)calibrated, NULL));
    } else if (cost_samples > 0)
        snprintf(taking, sizeof taking,
                 "%s (%s a sample, measured at each) taking the samples, out of every time; ",
                 time_text(k, sizeof k, cost, NULL),
                 time_text(q, sizeof q, cost / cost_samples, NULL));
    snprintf(buf, size,
             "%s%zu of %zu runs: calls counted exactly; Total and Self from CPU-time samples, "
             "one per %s of a thread's CPU time (%s%s%s), with their 95 %% bounds (Total +/-, "
             "Self +/-); calls timed (Wall, Off-CPU, percentiles) only in calling contexts whose "
             "calls last long, what was estimated and taken out of their Wall with its bound "
             "(Wall +/-). Sampled CPU time %s; of it %s%s (%.1f %%) in the collector's own "
             "code, left out of every region, and %s outside every region. %s%s%s; "
             "the other threads' overhead out of the Wall of a thread that waited for them "
             "(Threads: Waited on hooks)",
             "", sampled, m->nruns, time_text(a, sizeof a, period, NULL), method, longer, traded,
             time_text(c, sizeof c, samples, NULL), taking, time_text(d, sizeof d, overhead, NULL),
             samples > 0 ? 100 * overhead / samples : 0.0, time_text(e, sizeof e, outside, NULL),
             dear,
             /* "0 ns" where no thread's hooks took the 30 samples a measure needs read as a
                measure (pigz: "hooks cost 0 ns" beside a suggestion of "4 x 12 ns") */
             hook_n > 0 ? "A call's hooks cost " : "",
             hook_n > 0 ? hook_text
                        : "The hooks took too few samples to measure what a call's "
                          "cost (under 30 in every thread), and nothing was taken "
                          "out of Wall for them");
}

/* Functions whose calls were not counted, by their sampled time, most first (qsort_r; ctx is
   the model). */
static int by_left_out_ns(const void *a, const void *b, void *ctx)
{
    const struct model *m = ctx;
    double x = m->regions[*(const size_t *)a].left_out_ns;
    double y = m->regions[*(const size_t *)b].left_out_ns;
    return (x < y) - (x > y);
}

#define LEFT_OUT_SHOWN 10

/* Why region r's sampled self time has no calls, beside it on the Summary. */
static const char *left_out_note(const struct region *r)
{
    if (left_out_no_hooks(r->left_out))
        return region_uncounted(r) ? "sampled self time; compiled without hooks, calls not counted"
                                   : "sampled self time where compiled without hooks; calls not "
                                     "counted there";
    return region_uncounted(r) ? "sampled self time; calls not counted"
                               : "sampled self time where left out; calls not counted there";
}

/*
 * Below the filters' lines: each function whose calls were not counted where it took samples
 * (FORMAT.md 1.4), left out by the filters or compiled without hooks, on a row of its own: its
 * name, its sampled self time and why it has no calls; the most time first, up to
 * LEFT_OUT_SHOWN of them (Call cost lists all).
 */
static void left_out_rows(struct book *b, lxw_worksheet *ws, lxw_row_t *row)
{
    const struct model *m = b->m;
    size_t *idx = xmalloc((m->nregions ? m->nregions : 1) * sizeof *idx), n = 0;
    for (size_t i = 0; i < m->nregions; i++)
        if (m->regions[i].left_out && !m->regions[i].excluded)
            idx[n++] = i;
    qsort_r(idx, n, sizeof *idx, by_left_out_ns, (void *)(uintptr_t)m);
    size_t more_no_hooks = 0; /* past LEFT_OUT_SHOWN */
    for (size_t i = 0; i < n; i++) {
        const struct region *r = &m->regions[idx[i]];
        int no_hooks = left_out_no_hooks(r->left_out);
        if (i >= LEFT_OUT_SHOWN) {
            more_no_hooks += no_hooks;
            continue;
        }
        put_str(b, ws, *row, 0, no_hooks ? "Uninstrumented function" : "Left-out function",
                b->f.bold);
        put_str_cap(b, ws, *row, 1, model_short(r), NULL, WIDTH_SUMMARY);
        put_time(b, ws, *row, 2, r->left_out_ns);
        put_str(b, ws, *row, 3, left_out_note(r), b->f.aside); /* over the top table's columns */
        (*row)++;
    }
    if (n > LEFT_OUT_SHOWN) {
        size_t more = n - LEFT_OUT_SHOWN;
        char buf[128];
        snprintf(buf, sizeof buf, "%zu more %s functions on Call cost (its Left out column)", more,
                 more_no_hooks == 0      ? "left-out"
                 : more_no_hooks == more ? "uninstrumented"
                                         : "left-out or uninstrumented");
        kv(b, ws, row, "", buf);
    }
    free(idx);
}

/* The functions gcc inlined with their hooks (FORMAT.md 1.2), the first INLINED_SHOWN of them
   in rank's order (n regions), and what their figures mean; no row when there are none. */
#define INLINED_SHOWN 5
static void inlined_row(struct book *b, lxw_worksheet *ws, lxw_row_t *row, const size_t *rank,
                        size_t n)
{
    struct prof_sbuf s = {0};
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        const struct region *r = &b->m->regions[rank[i]];
        if (!r->inlined || r->left_out)
            continue;
        if (shown == INLINED_SHOWN) {
            more++;
            continue;
        }
        prof_sbuf_addf(&s, "%s%s", shown++ ? ", " : "", model_short(r));
    }
    if (more)
        prof_sbuf_addf(&s, " and %zu more", more);
    if (shown) {
        prof_sbuf_addf(&s, ": calls counted, time in the self time of the functions they were "
                           "inlined into (Call cost notes each in its Left out column)");
        kv(b, ws, row, "Inlined by the compiler", sbuf_text(&s));
    }
    prof_sbuf_release(&s);
}

static void sheet_summary(struct book *b, lxw_worksheet *ws, const size_t *rank, size_t n)
{
    const struct model *m = b->m;
    const struct report_info *ri = b->ri;
    char buf[2048]; /* the Timing text is the longest */
    lxw_row_t row = 0;
    put_str(b, ws, row++, 0, ri->title ? ri->title : "profreport report", b->f.title);
    row++;
    kv_num(b, ws, &row, "Runs", (double)m->nruns, b->f.count);
    char *programs = programs_summary(m);
    kv(b, ws, &row, m->nprograms > 1 ? "Programs" : "Program", programs);
    free(programs);
    size_t incomplete = 0, recovered = 0;
    for (size_t k = 0; k < m->nruns; k++) {
        incomplete += !m->runs[k].complete;
        recovered += m->runs[k].recovered;
    }
    kv_num(b, ws, &row, "Incomplete runs", (double)incomplete, b->f.count);
    kv_num(b, ws, &row, "Runs recovered from killed processes", (double)recovered, b->f.count);
    size_t crashed = model_crashed_runs(m);
    kv_num(b, ws, &row, "Crashed runs", (double)crashed, b->f.count);
    for (size_t k = 0, shown = 0; k < m->nruns && shown < 5; k++) {
        if (!m->runs[k].crash)
            continue;
        model_run_crash_text(m, k, buf, sizeof buf);
        kv(b, ws, &row, shown ? "" : "Crashes", buf);
        shown++;
    }
    if (crashed > 5) {
        snprintf(buf, sizeof buf, "... %zu more in the Runs sheet's Crash column", crashed - 5);
        kv(b, ws, &row, "", buf);
    }
    kv_num(b, ws, &row, "Inputs (run files and killed runs)", (double)ri->ninputs, b->f.count);
    kv_num(b, ws, &row, "Threads", (double)m->nthreads, b->f.count);
    size_t idle = 0, timed = 0;
    for (size_t i = 0; i < m->nthreads; i++) {
        int k = model_thread_idle(&m->threads[i]);
        timed += k >= 0;
        idle += k > 0;
    }
    if (timed)
        snprintf(buf, sizeof buf, "%zu of %zu (CPU under %.0f %% of wall time; see Threads)", idle,
                 timed, 100 * MODEL_IDLE_SHARE);
    kv(b, ws, &row, "Mostly idle threads", timed ? buf : "unknown (no CPU times in these runs)");
    kv(b, ws, &row, "Runs on a busy machine", runcheck_busy_summary(m, buf, sizeof buf));
    kv(b, ws, &row, "Outlier runs", runcheck_outlier_summary(m, buf, sizeof buf));
    kv_num(b, ws, &row, "Events read", (double)m->events, b->f.count);
    timing_summary(m, buf, sizeof buf);
    kv(b, ws, &row, "Timing", buf);
    for (int exclude = 0; exclude <= 1; exclude++) {
        char *filters = suggest_filters_text(m, exclude);
        if (filters)
            kv(b, ws, &row, exclude ? "Left out (PROFILER_EXCLUDE)" : "Only (PROFILER_INCLUDE)",
               filters);
        free(filters);
    }
    left_out_rows(b, ws, &row);
    inlined_row(b, ws, &row, rank, n);
    kv_num(b, ws, &row, "Regions", (double)n, b->f.count);
    const char *first = NULL, *last = NULL;
    for (size_t k = 0; k < m->nruns; k++) {
        const char *s = m->runs[k].start;
        if (!s)
            continue;
        if (!first || strcmp(s, first) < 0)
            first = s;
        if (!last || strcmp(s, last) > 0)
            last = s;
    }
    /* Start values are the files' text: sized to fit, as a cut could split a character. */
    size_t slen = (first ? strlen(first) : 1) + (last ? strlen(last) : 1) + 8;
    char *started = xmalloc(slen);
    snprintf(started, slen, "%s .. %s", first ? first : "?", last ? last : "?");
    kv(b, ws, &row, "Runs started (UTC)", first ? started : "unknown");
    free(started);
    /* Distinct tick rates: a run's ticks are converted with its own. */
    struct {
        char s[512];
        size_t len;
    } fr = {"", 0};
    for (size_t k = 0; k < m->nruns; k++) {
        int seen = 0;
        for (size_t j = 0; j < k; j++)
            seen |= m->runs[j].frequency == m->runs[k].frequency;
        if (!seen && fr.len < sizeof fr.s - 32)
            fr.len +=
                (size_t)snprintf(fr.s + fr.len, sizeof fr.s - fr.len, "%s%llu Hz",
                                 fr.len ? ", " : "", (unsigned long long)m->runs[k].frequency);
    }
    kv(b, ws, &row, "Tick rates", fr.s);
    char *mixed = programs_mixed(m);
    if (mixed)
        kv(b, ws, &row, "Runs unlike each other", mixed);
    free(mixed);
    kv_num(b, ws, &row, "Warnings", (double)m->nwarnings + (ri->charts_note != NULL), b->f.count);
    kv_num(b, ws, &row, "Malformed rows skipped", (double)m->skipped_rows, b->f.count);
    kv(b, ws, &row, "Command", ri->command_line);
    snprintf(buf, sizeof buf, "profreport %s", prof_version());
    kv(b, ws, &row, "Made by", buf);
    kv(b, ws, &row, "Made at", ri->generated);
    if (b->forced) {
        snprintf(buf, sizeof buf, "every time in %s (--unit %s)", b->forced, b->forced);
        kv(b, ws, &row, "Units", buf);
    } else {
        kv(b, ws, &row, "Units",
           "each time in its own unit (ns, us, ms or s), 3 significant digits; the cells hold "
           "numbers of ns");
    }

    row++;
    snprintf(buf, sizeof buf, "Top regions by %s", model_sort_labels[m->sort]);
    lxw_row_t top_caption = row; /* with the table on one printed page (keep_together) */
    put_str(b, ws, row++, 0, buf, b->f.bold);
    /* Where the time goes first: each region's own time and its share, then its inclusive
       time, then how often it ran and what one call costs. */
    char h[5][48];
    const char *heads[] = {"Region",
                           with_unit(b, h[0], sizeof h[0], "Self"),
                           "Self %",
                           with_unit(b, h[1], sizeof h[1], "Total"),
                           "Total %",
                           "Calls",
                           with_unit(b, h[2], sizeof h[2], "Mean")};
    /* Over its numbers: the columns are as wide as the values above them (a path, a note). */
    for (lxw_col_t c = 0; c < 7; c++)
        put_str(b, ws, row, c, heads[c], c ? b->f.header_right : b->f.header);
    row++;
    double busy = model_busy(m);
    size_t top = n < ri->top ? n : ri->top;
    double largest_mean = 0, largest_self = 0;
    lxw_row_t top_row = row;
    size_t shortened = 0, inlined_shown = 0;
    for (size_t i = 0; i < top; i++, row++) {
        struct region *r = &m->regions[rank[i]];
        /* The short name the terminal and the charts show; Call cost has the full one. */
        put_str_cap(b, ws, row, 0, model_short(r), NULL, WIDTH_SUMMARY);
        shortened += strcmp(model_short(r), r->display) != 0;
        put_time(b, ws, row, 1, r->self_ns);
        put_num(b, ws, row, 2, m->self_total_ns > 0 ? r->self_ns / m->self_total_ns : NAN,
                b->f.pct);
        put_time(b, ws, row, 3, r->outer_ns);
        put_num(b, ws, row, 4, busy > 0 ? r->outer_ns / busy : NAN, b->f.pct);
        /* A left-out function's calls were not counted: no number (the chart below reads
           this column), a word beside the table (the lines above say why). An inlined one's
           calls with little time: a mark, explained below the table as the terminal does. A
           narrow column: with the whole reason it made the printed page a third wider. */
        if (region_uncounted(r))
            put_str(b, ws, row, 7, "not counted", b->f.note);
        else
            put_num(b, ws, row, 5, (double)r->cost.n, b->f.count);
        if (r->inlined && !r->left_out) {
            put_str(b, ws, row, 7, "*", b->f.note);
            inlined_shown++;
        }
        put_time(b, ws, row, 6, dist_mean(&r->cost));
        if (dist_mean(&r->cost) > largest_mean)
            largest_mean = dist_mean(&r->cost);
    }
    if (top == 0)
        put_str(b, ws, row++, 0, "no regions", b->f.note);
    if (inlined_shown)
        put_str(b, ws, row++, 0, "* " MODEL_INLINED_TEXT, b->f.aside);
    if (shortened)
        put_str(b, ws, row++, 0, "Names shortened (<…> and (…)): full names on Call cost",
                b->f.note);
    page_setup(b, ws, -1);

    if (top > 0) {
        /* The self time chart reads the Charts sheet's table: the regions with the most self
           time, whatever --sort says. */
        size_t nself;
        size_t *by_self = model_ranked_by(m, SORT_SELF, &nself);
        size_t tself = nself < ri->top ? nself : ri->top;
        for (size_t i = 0; i < tself; i++)
            if (m->regions[by_self[i]].self_ns > largest_self)
                largest_self = m->regions[by_self[i]].self_ns;
        free(by_self);
        char title[96];
        lxw_chart_options place = {0};
        /* 26 rows: one chart to a printed page, every label shown; about as wide as the
           table above, 900 pixels, so that it prints as large */
        place.x_scale = 1.9;
        place.y_scale = 1.8;
        lxw_chart *self = workbook_add_chart(b->wb, LXW_CHART_BAR);
        lxw_chart_series *sr = chart_add_series(self, NULL, NULL);
        chart_series_set_categories(sr, "Charts", 2, 0, (lxw_row_t)(tself + 1), 0);
        chart_series_set_values(sr, "Charts", 2, 1, (lxw_row_t)(tself + 1), 1);
        snprintf(title, sizeof title, "Where the time goes: self time, top %zu", tself);
        set_chart_title(self, title);
        chart_axis_set_name(self->x_axis, with_unit(b, h[3], sizeof h[3], "self time"));
        set_time_axis(b, self, largest_self);
        chart_axis_set_reverse(self->y_axis); /* the most self time on top */
        chart_legend_set_position(self, LXW_CHART_LEGEND_NONE);
        /* Below the table, not beside it: the page keeps the table's width, and its text
           prints large enough to read. Where the time goes first, then the two others. */
        lxw_row_t below = (lxw_row_t)(row + 1);
        worksheet_insert_chart_opt(ws, below, 0, self, &place);
        snprintf(title, sizeof title, "%s, top %zu",
                 with_unit(b, h[4], sizeof h[4], "Mean cost per call"), top);
        /* The other two read this sheet's own table: its short names and numbers. */
        lxw_chart *cost = bar_chart(b, "Summary", top_row, 6, top, title, "cost per call");
        set_time_axis(b, cost, largest_mean);
        worksheet_insert_chart_opt(ws, below + 28, 0, cost, &place);
        snprintf(title, sizeof title, "Calls, top %zu regions by %s", top,
                 model_sort_labels[m->sort]);
        lxw_chart *calls = bar_chart(b, "Summary", top_row, 5, top, title, "calls");
        /* Its own format: LibreOffice does not take the cells' (it printed 100000000). */
        chart_axis_set_num_format(calls->x_axis, "#,##0");
        worksheet_insert_chart_opt(ws, below + 56, 0, calls, &place);
        /* Each chart starts a printed page of its own, so that no page break cuts one; the
           table starts one when it would not fit on the page it begins on (a break cut it,
           and its rows after the break had no header). */
        lxw_row_t breaks[] = {below, below + 28, below + 56};
        keep_breaks(b, ws, breaks, 3);
        keep_together(b, ws, top_caption, row, 480 * place.x_scale);
    }
}

/* Comparison: the verdicts first, then one row per region, biggest change first. */
static void sheet_comparison(struct book *b, lxw_worksheet *ws, const struct comparison *c)
{
    lxw_row_t row = 0;
    put_str(b, ws, row++, 0,
            b->ri->title ? b->ri->title : "Comparison: new runs against the baseline", b->f.title);
    row++;
    kv_num(b, ws, &row, "Baseline runs", (double)c->nbase, b->f.count);
    kv_num(b, ws, &row, "New runs", (double)c->nnew, b->f.count);
    kv_num(b, ws, &row, "Regions in both", (double)c->nboth, b->f.count);
    kv_num(b, ws, &row, "Slower", (double)c->slower, b->f.count);
    kv_num(b, ws, &row, "Faster", (double)c->faster, b->f.count);
    kv_num(b, ws, &row, "Added", (double)c->added, b->f.count);
    kv_num(b, ws, &row, "Removed", (double)c->removed, b->f.count);
    kv_num(b, ws, &row, "Geometric-mean ratio (new / baseline)", c->geomean, b->f.ratio);
    kv_num(b, ws, &row, "Geometric-mean ratio 95% low", c->geomean_low, b->f.ratio);
    kv_num(b, ws, &row, "Geometric-mean ratio 95% high", c->geomean_high, b->f.ratio);
    kv(b, ws, &row, "Overall (geometric mean)", compare_verdict_name(c->geomean_verdict));
    kv_num(b, ws, &row, "Regions in the geometric mean", (double)c->ngeomean, b->f.count);
    kv_num(b, ws, &row, "Noise threshold", c->opt.noise, b->f.pct);
    kv_num(b, ws, &row, "Significance level (adjusted p)", c->opt.alpha, b->f.num);
    kv_num(b, ws, &row, "Smallest p-value possible", c->min_p, b->f.pvalue);
    kv_num(b, ws, &row, "Bootstrap resamples", c->opt.resamples, b->f.count);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->opt.seed);
    kv(b, ws, &row, "Bootstrap seed", seed);
    kv(b, ws, &row, "Warning", c->warning ? c->warning : "none");

    /* The table, below the chart's place. */
    row = row + 2 > 20 ? row + 2 : 20;
    lxw_row_t head = row;
    char h[4][48];
    const char *heads[] = {
        "Region",
        "Verdict",
        with_unit(b, h[0], sizeof h[0], "Baseline median"),
        with_unit(b, h[1], sizeof h[1], "New median"),
        with_unit(b, h[2], sizeof h[2], "Baseline mean"),
        with_unit(b, h[3], sizeof h[3], "New mean"),
        "Change",
        "Ratio",
        "Ratio 95% low",
        "Ratio 95% high",
        "U",
        "p-value",
        "Adjusted p",
        "Test",
        "Baseline runs with it",
        "New runs with it",
    };
    size_t ncols = sizeof heads / sizeof heads[0];
    put_headers(b, ws, head, heads, ncols);
    for (size_t i = 0; i < c->nrows; i++) {
        const struct compare_row *r = &c->rows[i];
        lxw_row_t at = (lxw_row_t)(head + 1 + i);
        put_str(b, ws, at, 0, r->display, NULL);
        put_str(b, ws, at, 1, compare_verdict_name(r->verdict),
                r->verdict == VERDICT_SLOWER   ? b->f.slower
                : r->verdict == VERDICT_FASTER ? b->f.faster
                                               : NULL);
        put_time(b, ws, at, 2, r->base_median);
        put_time(b, ws, at, 3, r->new_median);
        put_time(b, ws, at, 4, r->base_mean);
        put_time(b, ws, at, 5, r->new_mean);
        put_num(b, ws, at, 6, r->change, b->f.pct);
        put_num(b, ws, at, 7, r->ratio, b->f.ratio);
        put_num(b, ws, at, 8, r->ratio_low, b->f.ratio);
        put_num(b, ws, at, 9, r->ratio_high, b->f.ratio);
        put_num(b, ws, at, 10, r->test.u, b->f.num);
        put_num(b, ws, at, 11, r->test.p, b->f.pvalue);
        put_num(b, ws, at, 12, r->q, b->f.pvalue);
        if (isfinite(r->test.p))
            put_str(b, ws, at, 13, r->test.exact ? "exact" : "normal approximation", NULL);
        if (r->base)
            put_num(b, ws, at, 14, (double)r->base_runs, b->f.count);
        if (r->new)
            put_num(b, ws, at, 15, (double)r->new_runs, b->f.count);
    }
    if (c->nrows == 0)
        put_str(b, ws, head + 1, 0, "no regions", b->f.note);
    else
        worksheet_autofilter(ws, head, 0, (lxw_row_t)(head + c->nrows), (lxw_col_t)(ncols - 1));
    page_setup(b, ws, (int)head);

    /* A native chart of the biggest changes: the leading rows that have a ratio. */
    size_t n = 0;
    while (n < c->nrows && n < b->ri->top && isfinite(c->rows[n].change) &&
           c->rows[n].verdict != VERDICT_ADDED && c->rows[n].verdict != VERDICT_REMOVED)
        n++;
    if (n > 0) {
        lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_BAR);
        lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(s, "Comparison", head + 1, 0, (lxw_row_t)(head + n), 0);
        chart_series_set_values(s, "Comparison", head + 1, 6, (lxw_row_t)(head + n), 6);
        char title[96];
        snprintf(title, sizeof title, "Change of the median total time per run, top %zu", n);
        set_chart_title(ch, title);
        chart_axis_set_name(ch->x_axis, "change (new / baseline - 1)");
        chart_axis_set_num_format(ch->x_axis, "0%");
        chart_axis_set_reverse(ch->y_axis); /* biggest change on top */
        chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
        lxw_chart_options place = {0};
        place.x_scale = 1.6;
        place.y_scale = 1.25;
        worksheet_insert_chart_opt(ws, 1, 3, ch, &place);
    }
}

/* Comparison runs: the run files of each side, then every region's total time per run. */
static void sheet_comparison_runs(struct book *b, const struct comparison *c)
{
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, "Comparison runs");
    const char *heads[] = {"Side", "Run", "File", "Start", "Program"};
    put_headers(b, ws, 0, heads, 5);
    lxw_row_t row = 1;
    for (int side = 0; side < 2; side++) {
        const struct model *m = side ? c->new_model : c->base_model;
        for (size_t k = 0; k < m->nruns; k++, row++) {
            put_str(b, ws, row, 0, side ? "new" : "baseline", NULL);
            put_num(b, ws, row, 1, (double)(k + 1), b->f.count);
            put_str(b, ws, row, 2, m->runs[k].file, NULL);
            put_str(b, ws, row, 3, m->runs[k].start, NULL);
            put_str(b, ws, row, 4, m->runs[k].program, NULL);
        }
    }
    row += 2;
    char title[96], h[48];
    snprintf(title, sizeof title, "%s, region x run: the values compared",
             with_unit(b, h, sizeof h, "Total time per run"));
    /* A sheet has 16,384 columns: runs past COMPARE_MATRIX_RUNS a side are in the table above,
       and in the statistics, but have no column here; said above it (and as a warning). */
    size_t nb = c->nbase < COMPARE_MATRIX_RUNS ? c->nbase : COMPARE_MATRIX_RUNS;
    size_t nn = c->nnew < COMPARE_MATRIX_RUNS ? c->nnew : COMPARE_MATRIX_RUNS;
    char note[256];
    if (compare_matrix_note(c, note, sizeof note))
        put_str(b, ws, row++, 0, note, NULL);
    put_str(b, ws, row++, 0, title, b->f.bold);
    put_str(b, ws, row, 0, "Region", b->f.header);
    char buf[48];
    for (size_t k = 0; k < nb; k++) {
        snprintf(buf, sizeof buf, "Baseline %zu", k + 1);
        put_str(b, ws, row, (lxw_col_t)(1 + k), buf, b->f.header);
    }
    for (size_t k = 0; k < nn; k++) {
        snprintf(buf, sizeof buf, "New %zu", k + 1);
        put_str(b, ws, row, (lxw_col_t)(1 + nb + k), buf, b->f.header);
    }
    row++;
    for (size_t i = 0; i < c->nrows; i++, row++) {
        const struct compare_row *r = &c->rows[i];
        put_str(b, ws, row, 0, r->display, NULL);
        for (size_t k = 0; r->base && k < nb; k++)
            put_time(b, ws, row, (lxw_col_t)(1 + k), r->base[k]);
        for (size_t k = 0; r->new &&k < nn; k++)
            put_time(b, ws, row, (lxw_col_t)(1 + nb + k), r->new[k]);
    }
    page_setup(b, ws, 0);
}

/* Rows of the default height (20 pixels) a PNG takes at scale, from its header's height;
   30 when the file cannot be read as a PNG. */
static lxw_row_t png_rows(const char *path, double scale)
{
    unsigned char h[24];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (got < sizeof h || memcmp(h, "\x89PNG\r\n\x1a\n", 8) != 0)
        return 30;
    /* IHDR comes first: width, then height, as big-endian 32-bit numbers. */
    unsigned long px =
        (unsigned long)h[20] << 24 | (unsigned long)h[21] << 16 | (unsigned long)h[22] << 8 | h[23];
    return (lxw_row_t)ceil((double)px * scale / 20);
}

/*
 * The label of region r's bar (the Charts sheet's Region column, which the native charts read):
 * its short name fitted to SHORTNAME_CHART_LABEL by leaving out leading scopes
 * ("…MatchUnchecked<YAML::StringCharSource>(…)": what tells it from its siblings stays); when
 * that is not enough, its shortest form (every template argument and parameter collapsed),
 * fitted. The full name is beside it. A yaml-cpp std::_Rb_tree method's short name, 204
 * characters with the detail that told it from another, wrapped to three lines, and
 * LibreOffice left every other bar of the chart unnamed.
 */
static char *chart_label(const struct region *r, size_t width)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    const char *s = model_short(r);
    char *fit = shortname_fit(s, width);
    size_t n = strlen(s), k = strlen(fit), e = sizeof ellipsis - 1;
    if (strcmp(fit, s) == 0)
        return fit;
    /* "…" and a tail of s that follows a "::": only scopes left out */
    if (k > e && memcmp(fit, ellipsis, e) == 0 && n >= k - e + 2 &&
        strcmp(s + n - (k - e), fit + e) == 0 && s[n - (k - e) - 1] == ':')
        return fit;
    free(fit);
    char *least = shortname(r->display, 0);
    fit = shortname_fit(least, width);
    free(least);
    return fit;
}

/*
 * The labels of the top regions' bars, rank[0..top), each different: a label that an earlier
 * (heavier) region's has too is fitted into less room and numbered, "… (2)", so that no two
 * bars read alike (yaml-cpp's two std::_Rb_tree<…>::_M_emplace_hint_unique<…>(…) did).
 */
static char **chart_labels(const struct model *m, const size_t *rank, size_t top)
{
    char **label = xcalloc(top ? top : 1, sizeof *label);
    char **plain = xcalloc(top ? top : 1, sizeof *plain);
    for (size_t i = 0; i < top; i++) {
        const struct region *r = &m->regions[rank[i]];
        plain[i] = chart_label(r, SHORTNAME_CHART_LABEL);
        unsigned same = 1;
        for (size_t j = 0; j < i; j++)
            same += strcmp(plain[j], plain[i]) == 0;
        if (same == 1) {
            label[i] = xstrdup(plain[i]);
            continue;
        }
        char mark[16];
        int w = snprintf(mark, sizeof mark, " (%u)", same);
        char *fit = chart_label(r, SHORTNAME_CHART_LABEL - (size_t)w);
        label[i] = xmalloc(strlen(fit) + (size_t)w + 1);
        sprintf(label[i], "%s%s", fit, mark);
        free(fit);
    }
    for (size_t i = 0; i < top; i++)
        free(plain[i]);
    free(plain);
    return label;
}

/* Charts: a native chart of self time by region below its figures, then the gnuplot pictures,
   each below the last whatever its height, or why there are none. Nothing stands beside the
   pictures and their titles widen no column, so that a page, one wide, prints a picture at
   its size (beside the table and under a wide title column, a flame graph printed at half its
   width, its names unreadable). */
static void sheet_charts(struct book *b)
{
    const struct report_info *ri = b->ri;
    const struct model *m = b->m;
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, "Charts");
    page_setup(b, ws, -1);
    size_t n;
    size_t *rank = model_ranked_by(m, SORT_SELF, &n);
    size_t top = n < ri->top ? n : ri->top;
    char title[96], h[48];
    snprintf(title, sizeof title, "Self time by region, top %zu", top);
    put_str(b, ws, 0, 0, title, b->f.caption);
    const char *heads[] = {"Region", with_unit(b, h, sizeof h, "Self"), "Self %", "Full name"};
    put_headers(b, ws, 1, heads, 4);
    double largest = 0;
    char **label = chart_labels(m, rank, top);
    for (size_t i = 0; i < top; i++) {
        const struct region *r = &m->regions[rank[i]];
        put_str(b, ws, (lxw_row_t)(i + 2), 0, label[i], NULL);
        free(label[i]);
        put_str(b, ws, (lxw_row_t)(i + 2), 3, r->display, NULL);
        put_time(b, ws, (lxw_row_t)(i + 2), 1, r->self_ns);
        put_num(b, ws, (lxw_row_t)(i + 2), 2,
                m->self_total_ns > 0 ? r->self_ns / m->self_total_ns : NAN, b->f.pct);
        if (r->self_ns > largest)
            largest = r->self_ns;
    }
    free(label);
    free(rank);
    lxw_row_t row = (lxw_row_t)(top + 3);
    if (top > 0) {
        lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_BAR);
        lxw_chart_series *sr = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(sr, "Charts", 2, 0, (lxw_row_t)(top + 1), 0);
        chart_series_set_values(sr, "Charts", 2, 1, (lxw_row_t)(top + 1), 1);
        snprintf(title, sizeof title, "Self time, top %zu regions", top);
        set_chart_title(ch, title);
        chart_axis_set_name(ch->x_axis, h);
        set_time_axis(b, ch, largest);
        chart_axis_set_reverse(ch->y_axis); /* the most self time on top */
        chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
        /* Tall enough for a label on every bar (LibreOffice skips every other one of 15 bars
           in 374 pixels): 24 pixels a bar and the title and axis, in rows of 20 pixels. */
        double tall = 100.0 + 24.0 * (double)top;
        lxw_chart_options place = {0};
        place.x_scale = 1.2;
        place.y_scale = tall > 288 ? tall / 288 : 1;
        worksheet_insert_chart_opt(ws, row, 0, ch, &place);
        row = (lxw_row_t)(row + 2 + (lxw_row_t)(288 * place.y_scale / 20));
    }
    if (ri->nimages == 0) {
        put_str(b, ws, row, 0, ri->charts_note ? ri->charts_note : "no gnuplot charts", b->f.note);
        return;
    }
    /* Each picture starts a printed page, so that no page break cuts one. */
    lxw_row_t *breaks = xcalloc(ri->nimages + 1, sizeof *breaks);
    for (size_t i = 0; i < ri->nimages; i++) {
        breaks[i] = row;
        put_str(b, ws, row, 0, ri->image_titles[i], b->f.caption);
        lxw_image_options opt = {0};
        opt.x_scale = 0.8;
        opt.y_scale = 0.8;
        worksheet_insert_image_opt(ws, row + 1, 0, ri->images[i], &opt);
        row = (lxw_row_t)(row + 3 + png_rows(ri->images[i], 0.8));
    }
    worksheet_set_h_pagebreaks(ws, breaks);
    free(breaks);
}

/* About: what every sheet and column means. */
static void sheet_about(struct book *b)
{
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, "About");
    static const char *const lines[][2] = {
        {"Summary",
         "What was read, the top regions (by total time, or as --sort says) with "
         "their self time and share first, then their total time, calls and mean "
         "cost, and native charts: where the time goes (the regions with the most "
         "self time), the mean cost per call and the calls. Programs: the runs are "
         "grouped by their Program record and "
         "one program is reported (--program NAME, else the one whose runs took the most "
         "time in all; --all-programs merges them); the others are named with their "
         "runs and the time those took. Runs "
         "unlike each other: runs from different hosts or clocks, or tick rates of one "
         "clock more than 1 % apart. Crashed runs: runs that ended by a fatal signal, "
         "each named with its signal and the thread it came to."},
        {"Times", "A time cell holds a number of nanoseconds, shown in its own unit (ns, us, ms "
                  "or s) with at least 3 significant digits by its number format, as the "
                  "terminal prints it: 1092010972 shows as 1.09 s. Sort and compute with the "
                  "numbers. With --unit, every time is a number of that unit, and the headers "
                  "name it."},
        {"Call cost", "One row per region (all rows with the same id text, across threads and "
                      "runs), heaviest first (by total time, or as --sort says). Times are "
                      "converted from ticks with each run's own "
                      "Frequency."},
        {"Calls", "Completed instances of the region."},
        {"Total", "Inclusive time, counting a recursive region's outermost calls only (rows "
                  "with Nested = 0), so recursion is not counted twice."},
        {"Total %", "Total divided by the time all threads spent inside top-level regions. A "
                    "top-level region that never stopped (a killed run) adds the time of the "
                    "regions seen inside it (its own time is unknown), so no share exceeds "
                    "100 %."},
        {"Self", "Time in the region itself: inclusive time minus that of the regions directly "
                 "inside it."},
        {"Self %", "Self divided by the self time of all regions (these add up to 100 %)."},
        {"Mean, Std dev, Min, Max", "Of the inclusive cost of one call; Std dev is the sample "
                                    "standard deviation. A recursive call's time is in its own "
                                    "cost and again in that of each call of the same region "
                                    "above it, so Mean x Calls can exceed Total, which counts it "
                                    "once."},
        {"Median, P90, P99", "Percentiles of the cost of one call, interpolated between order "
                             "statistics as Excel's PERCENTILE.INC. 'exact' in the Percentiles "
                             "column: computed from every value (up to 4096 calls per region); "
                             "'histogram': from a log-linear histogram with 32 buckets per "
                             "power of two, within 1.6 % of the exact value."},
        {"Runs", "Runs in which the region ran at least once."},
        {"Run mean, Run std dev, Run CV", "Of the per-run mean costs: how much a region's cost "
                                          "varies from run to run (CV = std dev / mean)."},
        {"95% CI +/-", "Half-width of the 95 % confidence interval of the run mean (Student's t "
                       "over the runs): the true mean cost lies within Run mean +/- this, if "
                       "runs are independent."},
        {"Fastest run, Slowest run", "Lowest and highest per-run mean cost."},
        {"Never stopped", "Instances with no stop (empty Ticks): counted here, not in the "
                          "statistics."},
        {"Short name", "The name the terminal, the charts and the Summary show: a C++ name without "
                       "its return type, template arguments and parameters collapsed to <…> and "
                       "(…), with just enough of them kept where two names would otherwise read "
                       "the same. The Region column holds the full name."},
        {"Sampled timing", "A run of libprofreport-auto (PROFILER_TIMING=sampled, its default) "
                           "counts every call exactly but reads no clock for short calls: "
                           "Total and Self are CPU-time samples (one per sample period of a "
                           "thread's CPU time) charged to the calling context running at each "
                           "sample, so a region's Total counts each sample once even under "
                           "recursion. Samples that land in the collector's own hooks are "
                           "overhead, left out of every region (Summary, Timing). Mean and "
                           "percentiles: the wall time per call of calling contexts whose every "
                           "call was timed (long ones: a context stops being timed once 16 of "
                           "its calls average under the threshold in the Timing record), else "
                           "the sampled time divided by the calls."},
        {"Total +/-, Self +/-", "Sampled runs: 1.96 standard deviations of the sampled time "
                                "(1.96 x sqrt(samples) x period), the 95 % bound of Total and "
                                "Self; wider for a CPU-time timer's samples, each of whose "
                                "signals stands for all the periods since the one before "
                                "(samples x their mean weight in place of samples)."},
        {"Wall, Off-CPU", "Sampled runs: the wall time of the region's calls in calling "
                          "contexts timed on every call, and the part of it not on the CPU "
                          "(Wall minus their sampled CPU time): sleeping, waiting for I/O or a "
                          "lock, or waiting for a CPU; empty where that difference lies within "
                          "the 95 % bounds of the sampled time and of Wall (calls far shorter "
                          "than the sample period: one sample or none says nothing of them)."},
        {"Wall +/-", "Sampled runs: the 95 % bound of Wall. Wall is clock time less two "
                     "estimates made of samples: the hooks' cost of each call made inside the "
                     "timed calls (a thread's overhead samples over its calls, Summary: Timing) "
                     "and, for a thread that waited, the collector's work on the other threads "
                     "(Threads: Waited on hooks). Each is a count of samples, whose relative "
                     "error is 1 / its square root; 0 where nothing estimated was taken out, "
                     "empty where the run does not say how many samples measured the hooks "
                     "(older files)."},
        {"Hit count", "Calls per region: in total, in each run (Run N is the N-th row of the "
                      "Runs sheet), and per thread name across runs."},
        {"Runs", "One row per run file (or killed run rebuilt from its parts), then region x "
                 "run matrices of mean cost and calls. Crash: the signal that ended a run that "
                 "crashed (the collector wrote what every thread had recorded, then let the "
                 "signal end the program); empty for the others. CPU wait %: of the time the "
                 "run's threads wanted a CPU (their CPU time plus the time they were runnable but "
                 "waited, the kernel's run-queue delay), the share they waited; Check: 'busy "
                 "machine' when that is over 10 % (other programs took the CPUs, or the run's "
                 "own threads outnumbered them: the times include waiting), 'outlier' when the "
                 "run's busy time is far from the median "
                 "run's (a modified z-score over 3.5 and at least 5 % off, among 3 runs or "
                 "more)."},
        {"Threads", "One row per thread of each run; Busy is its time in top-level regions (the "
                    "base of Total %). Wall and CPU: the thread's wall-clock and CPU time from its "
                    "first event to its end (or the run's end), empty when the run does not say; "
                    "Waited on hooks (sampled runs): the part of its waits taken to be the "
                    "collector's work on the run's other threads (their overhead samples over how "
                    "many ran side by side, at most its off-CPU time), taken out of the Wall of "
                    "its timed calls by their off-CPU time. "
                    "Mostly idle: CPU under 10 % of Wall (over at least 1 ms), a thread that "
                    "waited more than it worked. Below: "
                    "total (a recursive region's outermost calls only, as on Call cost) and self "
                    "time of each region per thread name (threads of the same name in different "
                    "runs add up)."},
        {"Call tree", "Exact caller -> callee edges from the Parent column (of events rows, and "
                      "of format 3 summary rows): calls, total and self time of the callee "
                      "when called from that caller. Total counts each instant once: a call "
                      "inside another call along the same edge (recursion) adds nothing to it, "
                      "so no edge exceeds its caller's time; Mean is the cost of one call."},
        {"Call paths", "Whole calling contexts (outermost > ... > innermost, merged over threads "
                       "and runs) with the most self time, and a chart of the heaviest: where "
                       "the time is spent and through which callers. Built from each row's "
                       "Depth and end order, or from format 3 summary rows' Node and Parent; "
                       "format 1-2 summary rows count as top-level paths. Frames show their "
                       "short names, and a run of frames repeated back to back (recursion) is "
                       "folded: walk ×9, [a > b] ×3."},
        {"Memory", "Only when a run used memory checks. Largest leak sites over all runs (site, "
                   "function, allocation stack), with a chart; the runtime's own blocks, still "
                   "reachable at exit (dynamic loader, C/C++ libraries: not leaks); then per run "
                   "the findings: leak (allocated, never freed), runtime-reachable, "
                   "double-free (refused, so the program ran on), unknown-free (a pointer never "
                   "seen allocated), mismatch (Alloc kind and Free kind differ: new/free, "
                   "malloc/delete, new/delete[]...), cross-thread-free (freed on Thread, "
                   "allocated on Other thread; legal, but worth knowing); Other site is the "
                   "allocation, or the first free of a double free. Then each thread's "
                   "allocations and bytes in the innermost region it was inside."},
        {"Warnings", "Problems found while reading, with file and line; 'none' when none."},
        {"Charts", "Self time by region (the top regions by time spent in themselves, not in "
                   "the regions they called; each named as its bar is, in 48 characters at most, "
                   "numbered '(2)' where a heavier one's bar reads alike, its full name beside it) "
                   "with a native chart, then the pictures drawn by "
                   "gnuplot from templates/*.gp (also saved as PNG and SVG): the flame graph of "
                   "the call paths, self time, cost per call, calls, distribution and trend."},
    };
    static const char *const compare_lines[][2] = {
        {"Comparison", "profreport --baseline OLD... -- NEW...: the runs named before '--' "
                       "(baseline) against the runs after it (new). The other sheets, from "
                       "Summary on, describe the new runs only."},
        {"Value compared", "A region's total time in one run: the sum of its calls' inclusive "
                           "time, recursion counted once (the run's share of Total); 0 in a run "
                           "where the region did not run. Each side has one value per run."},
        {"Baseline median, New median, Baseline mean, New mean", "Of those per-run values on "
                                                                 "each side."},
        {"Ratio, Change", "Ratio = New median / Baseline median; Change = Ratio - 1 (shown in "
                          "percent)."},
        {"Ratio 95% low, Ratio 95% high", "Percentile bootstrap interval of the ratio of "
                                          "medians: both sides resampled with replacement "
                                          "5000 times with profreport's own generator "
                                          "(xoshiro256**), seeded from --seed and the region's "
                                          "name, so the same input gives the same interval."},
        {"U, p-value", "Two-sided Mann-Whitney U test of the per-run values; U counts the "
                       "(baseline, new) pairs in which the new value is larger, ties counting "
                       "half. Exact distribution when no values tie and the arrangements can be "
                       "counted exactly (C(n1 + n2, n1) < 2^53), else the normal approximation "
                       "with tie and continuity corrections (Test column)."},
        {"Adjusted p", "Benjamini-Hochberg adjustment over the regions found on both sides: "
                       "controls the share of false discoveries among the regions reported."},
        {"Verdict", "'slower' or 'faster' when the adjusted p is below 0.05 and the change is "
                    "larger than the noise threshold (--noise, default 1 %); 'no significant "
                    "change' otherwise; 'added' or 'removed' for regions with completed calls "
                    "on one side only."},
        {"Geometric-mean ratio", "exp(mean(log Ratio)) over the regions on both sides with a "
                                 "positive ratio: the typical change, every region weighing the "
                                 "same."},
        {"Geometric-mean ratio 95% low, high; Overall",
         "Percentile bootstrap interval of the geometric-mean ratio: 5000 resamples, each "
         "drawing the runs of both sides with replacement (a run's regions stay together) and "
         "taking the geometric mean of the regions' median ratios; resamples where a median is "
         "0 are left out. Seeded from --seed, so the same input gives the same interval. Overall "
         "is 'slower' or 'faster' when the interval leaves 1 out and the geometric mean moved "
         "by more than the noise threshold, otherwise 'no significant change' (always when the "
         "interval holds 1)."},
        {"Smallest p-value possible", "2 / C(n1 + n2, n1): with 3 runs per side it is 0.1, so "
                                      "nothing can be significant; use 5 or more runs per "
                                      "side."},
        {"Comparison runs", "The run files of each side, then the per-run values the tests "
                            "used, region x run."},
    };
    put_str(b, ws, 0, 0, "Sheet or column", b->f.header);
    put_str(b, ws, 0, 1, "Meaning", b->f.header);
    lxw_row_t row = 1;
    if (b->ri->compare)
        for (size_t i = 0; i < sizeof compare_lines / sizeof compare_lines[0]; i++, row++) {
            put_str(b, ws, row, 0, compare_lines[i][0], b->f.bold);
            put_str(b, ws, row, 1, compare_lines[i][1], b->f.wrap);
        }
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++, row++) {
        put_str(b, ws, row, 0, lines[i][0], b->f.bold);
        put_str(b, ws, row, 1, lines[i][1], b->f.wrap);
    }
    page_setup(b, ws, 0);
}

/* The "cut" warning of cut strings added to m. */
void workbook_warn_cut(struct model *m, unsigned long cut)
{
    if (!cut)
        return;
    char msg[128];
    cut_message(msg, sizeof msg, cut);
    model_warn(m, "workbook", "cut", cut, "%s", msg);
}

/* Write the workbook. */
int workbook_write(const char *path, const struct model *m, const struct report_info *ri,
                   unsigned long *cut, struct rep_error *e)
{
    lxw_workbook_options opt = {0};
    struct book b = {0};
    b.m = m;
    b.ri = ri;
    b.wb = workbook_new_opt(path, &opt);
    if (!b.wb)
        return rep_fail(e, REP_ERR_OUTPUT, "cannot create the workbook");
    make_formats(&b);
    size_t n;
    size_t *rank = model_ranked(m, &n);
    /* The cells of Call cost, Hit count, the Runs and Threads matrices and Call tree. */
    double cells = (double)n * (TABLE_MAX_COLS + 3.0 * (double)(m->nruns + m->nkeys)) +
                   7.0 * (double)m->nedges;
    b.stream = cells > STREAM_CELLS;
    /* --unit fixes the unit times are stored and shown in; otherwise they are numbers of ns,
       each shown in its own unit. */
    b.forced = ri->unit && strcmp(ri->unit, "auto") != 0 ? ri->unit : NULL;
    b.stored = unit_for(0, b.forced);
    lxw_doc_properties props = {0};
    const char *title = ri->title ? ri->title : "profreport report";
    make_page_header(&b, title);
    char *title_text = text_visible(title, strlen(title), 1);
    props.title = title_text;
    static char comments[] = "Made by profreport";
    props.comments = comments;
    workbook_set_properties(b.wb, &props);
    free(title_text);

    /* A comparison's sheets come first: the workbook opens on its answer. */
    if (ri->compare) {
        sheet_comparison(&b, workbook_add_worksheet(b.wb, "Comparison"), ri->compare);
        sheet_comparison_runs(&b, ri->compare);
    }
    /* Summary first otherwise (it is the sheet the workbook opens on), filled last: its charts
       refer to the other sheets. */
    lxw_worksheet *summary = workbook_add_worksheet(b.wb, "Summary");
    sheet_call_cost(&b);
    sheet_hit_count(&b, rank, n);
    sheet_runs(&b, rank, n);
    sheet_threads(&b, rank, n);
    sheet_call_tree(&b);
    sheet_call_paths(&b, model_paths(m));
    int any_memory = 0;
    for (size_t k = 0; k < m->nruns; k++)
        any_memory |= m->runs[k].has_memory;
    if (any_memory)
        sheet_memory(&b);
    lxw_worksheet *warnings = workbook_add_worksheet(b.wb, "Warnings");
    sheet_charts(&b);
    sheet_about(&b);
    sheet_summary(&b, summary, rank, n);
    /* Warnings are filled last, so they include strings cut anywhere else. */
    if (cut)
        *cut = b.cut;
    if (b.lost)
        warn_msg("workbook: %lu cells past Excel's %d rows or %d columns were left out (%s)",
                 b.lost, LXW_ROW_MAX, LXW_COL_MAX, b.lost_in);
    sheet_warnings(&b, warnings, b.cut);
    fit_columns(&b);
    free(rank);
    lxw_error le = workbook_close(b.wb);
    if (le != LXW_NO_ERROR)
        return rep_fail(e, REP_ERR_OUTPUT, "libxlsxwriter: %s", lxw_strerror(le));
    return 0;
}
