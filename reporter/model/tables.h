/*
 * tables.h - tables.c: the model as ordered tables with their column schemas (Call cost, Call
 * tree, Runs, Threads), rendered alike by the workbook's sheets and the CSV and JSON exports.
 *
 * A column's name is written once, here; its kind says how its numbers are measured (a count,
 * a fraction, or nanoseconds summed over calls or per call), so each output shows it in its
 * own unit: the workbook each time in the unit units.h shows it in, the exports in ns.
 *
 * Ownership: a struct table borrows its model (which must outlive it) and owns its row order;
 * table_close frees it. Text cells point into the model.
 */
#ifndef PROFREPORT_TABLES_H
#define PROFREPORT_TABLES_H

#include "model/model.h"
#include "model/units.h"

#include <stddef.h>
#include <stdint.h>

/* The tables every output that lists statistics shares. */
enum table_id { TABLE_CALLCOST, TABLE_CALLTREE, TABLE_RUNS, TABLE_THREADS, TABLE_COUNT };
/* "callcost", "calltree", "runs", "threads": the exports' file and member names. */
extern const char *const table_names[TABLE_COUNT];

/* What a column holds. */
enum column_kind {
    COL_TEXT,
    COL_COUNT,    /* a whole number shown with thousands separators */
    COL_NUMBER,   /* a whole number shown as it is (a source line) */
    COL_SHARE,    /* a fraction, shown as a percentage */
    COL_TOTAL_NS, /* time summed over calls, ns */
    COL_COST_NS,  /* time of one call (or a statistic of such times), ns */
    COL_RATIO     /* a ratio or a probability, shown as it is */
};

struct column {
    const char *name; /* without unit: "Total"; times get theirs: "Total (ns)" */
    enum column_kind kind;
};

/* The most columns a table has. */
#define TABLE_MAX_COLS 32

enum cell_kind { CELL_NONE, CELL_TEXT, CELL_NUM, CELL_INT };

/* One cell: text, a number (times in ns, NaN and infinities made CELL_NONE) or a count. A
   CELL_NONE cell may have s and note set: it is empty in the data (the exports write nothing
   or null) and the workbook shows s as a note there ("not counted": a count that is unknown,
   not 0). */
struct cell {
    enum cell_kind kind;
    const char *s;
    double v;
    uint64_t i;
    int note; /* text that is ours, not data ("(thread top level)"): shown as a note */
};

/* A table of the model: its columns and the order of its rows. */
struct table {
    enum table_id id;
    const struct column *cols;
    size_t ncols, nrows;
    const struct model *m;
    size_t *order; /* callcost: ranked regions; calltree: edges */
    char **notes;  /* runs: each run's Check text (runcheck.h), owned */
    double busy;
};

/* The Call cost table's columns, in order: the terminal profile and the charts pick theirs. */
enum callcost_col {
    CC_REGION,
    CC_SHORT,
    CC_CALLS,
    CC_TOTAL,
    CC_TOTAL_SHARE,
    CC_SELF,
    CC_SELF_SHARE,
    CC_MEAN,
    CC_MEDIAN,
    CC_FILE, /* where the function is: beside the figures that print (workbook.c) */
    CC_LINE,
    CC_STDDEV,
    CC_MIN,
    CC_MAX,
    CC_P90,
    CC_P99,
    CC_RUNS,
    CC_RUN_MEAN,
    CC_RUN_STDDEV,
    CC_RUN_CV,
    CC_CI95,
    CC_FASTEST,
    CC_SLOWEST,
    CC_NEVER,
    CC_PERCENTILES,
    CC_TOTAL_PM, /* sampled runs (format 4) */
    CC_SELF_PM,
    CC_WALL,
    CC_WALL_PM,
    CC_OFFCPU,
    CC_LEFT_OUT, /* a left-out function's: why its Calls are empty (model_left_out_text) */
    CC_NCOLS
};

/* Open table id of m: Call cost rows by rank (model_ranked), Call tree edges heaviest first,
   then by callee (callees excluded by --include/--exclude left out), runs and threads in
   model order. */
void table_open(struct table *t, const struct model *m, enum table_id id);
/* The cells of row i (t->ncols of them) into cells. */
void table_row(const struct table *t, size_t i, struct cell *cells);
void table_close(struct table *t);

/* A cell as a number: its value, a count as a double, NaN when empty or text. */
double cell_number(const struct cell *c);

/*
 * What lies behind a Call cost row besides its columns, for the charts: the quantile q of the
 * row's per-call costs (ns; NaN without calls), and its mean cost per call in run k (ns; NaN
 * when it did not run there), the row of the Runs sheet's region x run matrix.
 */
double table_cost_quantile(const struct table *t, size_t i, double q);
double table_run_mean(const struct table *t, size_t i, size_t run);

/* A column's header: its name, with " (unit)" for times. Returns buf. */
const char *column_header(char *buf, size_t size, const struct column *c, struct unit cost,
                          struct unit total);

/*
 * A comparison (compare.h) as the exports write it: a summary of name-value pairs and one row
 * per region, in the comparison's order. Times are the per-run totals, in ns (COL_TOTAL_NS).
 * The names are those of the workbook's Comparison sheet.
 */
struct comparison;
#define COMPARE_NCOLS 16
extern const struct column compare_columns[COMPARE_NCOLS];
/* The cells of the comparison's row i (COMPARE_NCOLS of them). */
void table_compare_row(const struct comparison *c, size_t i, struct cell *cells);
#define COMPARE_NSUMMARY 18
/* The summary's names, and its values into cells (COMPARE_NSUMMARY of each). */
extern const char *const compare_summary_names[COMPARE_NSUMMARY];
void table_compare_summary(const struct comparison *c, struct cell *cells);

#endif /* PROFREPORT_TABLES_H */
