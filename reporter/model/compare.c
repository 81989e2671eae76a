/*
 * compare.c - baseline runs against new runs, region by region: medians and means of each
 * region's total time per run, a Mann-Whitney U test, Benjamini-Hochberg adjustment over the
 * regions, a bootstrap interval of the ratio of medians and a verdict. Pure: no I/O.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/compare.h"
#include "model/model.h"
#include "hash.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the generator ---- */

/* One step of splitmix64 (Steele, Lea and Flood): spreads a seed over 64 bits. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Seed the generator: its four words are splitmix64's first four outputs from seed. */
void compare_rng_seed(struct compare_rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&seed);
}

/* Rotate left. */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* The next 64 bits of xoshiro256**. */
uint64_t compare_rng_next(struct compare_rng *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n): the high word of a 128-bit product, rejecting the few biased draws. */
uint64_t compare_rng_below(struct compare_rng *g, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)compare_rng_next(g) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = -n % n; /* 2^64 mod n */
        while (low < threshold) {
            m = (unsigned __int128)compare_rng_next(g) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* ---- order statistics ---- */

/* qsort order of doubles (no NaN reaches here). */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The k-th smallest of v[0..n) (0-based), reordering v: Hoare's selection. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* Median of v[0..n), reordering v. */
static double median_inplace(double *v, size_t n)
{
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* After selection everything before n/2 is <= it: the lower middle is their largest. */
    double lo = v[0];
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return (lo + hi) / 2;
}

/* Median of v[0..n) without changing v. */
double compare_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = xmalloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    double m = median_inplace(c, n);
    free(c);
    return m;
}

/* Mean of v[0..n); NaN when empty. */
static double mean_of(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return n ? s / (double)n : NAN;
}

/* ---- the Mann-Whitney U test ---- */

/* C(n, k) when it is below 2^53 (so that counts of arrangements are exact in a double),
   else 0. */
static double binomial_exact(size_t n, size_t k)
{
    if (k > n - k)
        k = n - k;
    double c = 1;
    for (size_t i = 1; i <= k; i++) {
        c = c * (double)(n - k + i) / (double)i; /* stays an integer: C(n-k+i, i) */
        if (c >= 9007199254740992.0)
            return 0;
    }
    return c;
}

/* Smallest two-sided exact p-value for na and nb values: both extreme arrangements. */
double compare_mwu_min_p(size_t na, size_t nb)
{
    if (na == 0 || nb == 0)
        return 1;
    double lc = lgamma((double)(na + nb + 1)) - lgamma((double)na + 1) - lgamma((double)nb + 1);
    double p = 2 * exp(-lc);
    return p < 1 ? p : 1;
}

/*
 * P(U <= u) under the null hypothesis when there are no ties: U counts, over the C(m+n, m)
 * equally likely arrangements, pairs in one order. The counts per U are the coefficients of the
 * Gaussian binomial [m+n choose m](q), built as the product over i of (1 - q^(n+i)) / (1 - q^i);
 * each partial product is [n+i choose i](q), so every step stays in exact integers.
 */
static double mwu_exact_cdf(size_t m, size_t n, size_t u)
{
    size_t top = m * n;
    double *c = xcalloc(top + 1, sizeof *c);
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t deg = i * n; /* degree after this step */
        /* times (1 - q^(n+i)): the old degree is (i-1) n, below n + i + deg */
        for (size_t k = deg; k >= n + i && k <= deg; k--)
            c[k] -= c[k - (n + i)];
        /* divided by (1 - q^i): a running sum with stride i */
        for (size_t k = i; k <= deg; k++)
            c[k] += c[k - i];
    }
    double below = 0, total = 0;
    for (size_t k = 0; k <= top; k++) {
        total += c[k];
        if (k <= u)
            below += c[k];
    }
    free(c);
    return below / total;
}

/* Two-sided Mann-Whitney U test: exact without ties when the arrangements can be counted
   exactly, else the normal approximation with tie and continuity corrections. */
struct compare_mwu compare_mwu(const double *a, size_t na, const double *b, size_t nb)
{
    struct compare_mwu r = {NAN, NAN, 0};
    if (na == 0 || nb == 0)
        return r;
    size_t n = na + nb;
    struct item {
        double v;
        int from_b;
    } *all = xmalloc(n * sizeof *all);
    for (size_t i = 0; i < na; i++)
        all[i] = (struct item){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (struct item){b[i], 1};
    qsort(all, n, sizeof *all, cmp_double); /* v is the first member: compared as a double */
    double rank_b = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && all[j + 1].v == all[i].v)
            j++;
        double t = (double)(j - i + 1);
        double avg = (double)(i + j) / 2 + 1; /* mean of ranks i+1 .. j+1 */
        for (size_t k = i; k <= j; k++)
            if (all[k].from_b)
                rank_b += avg;
        ties += t * t * t - t;
        i = j + 1;
    }
    free(all);
    double fa = (double)na, fb = (double)nb;
    r.u = rank_b - fb * (fb + 1) / 2;
    double mu = fa * fb / 2;
    if (ties == 0 && binomial_exact(n, na) > 0) {
        double umin = r.u < fa * fb - r.u ? r.u : fa * fb - r.u;
        r.exact = 1;
        r.p = 2 * mwu_exact_cdf(na, nb, (size_t)umin);
        if (r.p > 1)
            r.p = 1;
        return r;
    }
    double fn = (double)n;
    double var = fa * fb / 12 * ((fn + 1) - ties / (fn * (fn - 1)));
    if (!(var > 0)) { /* every value the same: nothing to tell the sides apart */
        r.p = 1;
        return r;
    }
    double z = (fabs(r.u - mu) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    r.p = erfc(z / sqrt(2.0));
    return r;
}

/* ---- Benjamini-Hochberg ---- */

/* Sort order for compare_bh: by p through an index; ctx is the p array. */
static int by_p(const void *x, const void *y, void *ctx)
{
    const double *p = ctx;
    double a = p[*(const size_t *)x], b = p[*(const size_t *)y];
    return a < b ? -1 : a > b;
}

/* q_(i) = min over j >= i of p_(j) m / j, capped at 1, over the m finite p-values. */
void compare_bh(const double *p, size_t n, double *q)
{
    size_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        q[i] = NAN;
        if (isfinite(p[i]))
            idx[m++] = i;
    }
    qsort_r(idx, m, sizeof *idx, by_p, (void *)(uintptr_t)p);
    double running = 1;
    for (size_t k = m; k-- > 0;) {
        double v = p[idx[k]] * (double)m / (double)(k + 1);
        if (v < running)
            running = v;
        q[idx[k]] = running;
    }
    free(idx);
}

/* ---- bootstrap ---- */

/* Excel's PERCENTILE.INC of sorted v[0..n); infinities propagate without NaN. */
static double percentile_sorted(const double *v, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return v[n - 1];
    double f = h - (double)lo;
    if (f == 0)
        return v[lo];
    if (isinf(v[lo + 1])) /* ratios are >= 0: only +inf occurs, and v is sorted */
        return v[lo + 1];
    return v[lo] + f * (v[lo + 1] - v[lo]);
}

/* Resample a and b with replacement `resamples` times; the 2.5 % and 97.5 % percentiles of
   median(b*) / median(a*). A zero baseline median gives +inf (or NaN for 0 / 0, dropped). */
void compare_bootstrap(const double *a, size_t na, const double *b, size_t nb, unsigned resamples,
                       struct compare_rng *g, double *low, double *high)
{
    *low = *high = NAN;
    if (na == 0 || nb == 0 || resamples == 0)
        return;
    double *ratios = xmalloc(resamples * sizeof *ratios);
    double *sa = xmalloc(na * sizeof *sa), *sb = xmalloc(nb * sizeof *sb);
    size_t k = 0;
    for (unsigned r = 0; r < resamples; r++) {
        for (size_t i = 0; i < na; i++)
            sa[i] = a[compare_rng_below(g, na)];
        for (size_t i = 0; i < nb; i++)
            sb[i] = b[compare_rng_below(g, nb)];
        double ma = median_inplace(sa, na), mb = median_inplace(sb, nb);
        double ratio = ma != 0 ? mb / ma : mb > 0 ? INFINITY : NAN;
        if (!isnan(ratio))
            ratios[k++] = ratio;
    }
    if (k > 0) {
        qsort(ratios, k, sizeof *ratios, cmp_double);
        *low = percentile_sorted(ratios, k, 0.025);
        *high = percentile_sorted(ratios, k, 0.975);
        if (!isfinite(*low))
            *low = NAN;
        if (!isfinite(*high))
            *high = NAN;
    }
    free(ratios);
    free(sa);
    free(sb);
}

/* Resample the runs of each side `resamples` times, the same draw for every region; the
   2.5 % and 97.5 % percentiles of the geometric mean of the regions' median ratios. */
void compare_geomean_bootstrap(const double *const *a, size_t na, const double *const *b, size_t nb,
                               size_t k, unsigned resamples, struct compare_rng *g, double *low,
                               double *high)
{
    *low = *high = NAN;
    if (na == 0 || nb == 0 || k == 0 || resamples == 0)
        return;
    double *means = xmalloc(resamples * sizeof *means);
    size_t *ia = xmalloc(na * sizeof *ia), *ib = xmalloc(nb * sizeof *ib);
    double *sa = xmalloc(na * sizeof *sa), *sb = xmalloc(nb * sizeof *sb);
    size_t kept = 0;
    for (unsigned r = 0; r < resamples; r++) {
        for (size_t i = 0; i < na; i++)
            ia[i] = compare_rng_below(g, na);
        for (size_t i = 0; i < nb; i++)
            ib[i] = compare_rng_below(g, nb);
        double logsum = 0;
        int defined = 1;
        for (size_t j = 0; j < k && defined; j++) {
            for (size_t i = 0; i < na; i++)
                sa[i] = a[j][ia[i]];
            for (size_t i = 0; i < nb; i++)
                sb[i] = b[j][ib[i]];
            double ma = median_inplace(sa, na), mb = median_inplace(sb, nb);
            defined = ma > 0 && mb > 0;
            if (defined)
                logsum += log(mb / ma);
        }
        if (defined)
            means[kept++] = exp(logsum / (double)k);
    }
    if (kept > 0) {
        qsort(means, kept, sizeof *means, cmp_double);
        *low = percentile_sorted(means, kept, 0.025);
        *high = percentile_sorted(means, kept, 0.975);
    }
    free(means);
    free(ia);
    free(ib);
    free(sa);
    free(sb);
}

/* ---- the comparison ---- */

/* Name of a verdict, as the sheet and the terminal write it. */
const char *compare_verdict_name(enum compare_verdict v)
{
    switch (v) {
    case VERDICT_FASTER:
        return "faster";
    case VERDICT_SLOWER:
        return "slower";
    case VERDICT_ADDED:
        return "added";
    case VERDICT_REMOVED:
        return "removed";
    case VERDICT_SAME:
        break;
    }
    return "no significant change";
}

/* Parse --noise: a percentage ("1%", "2.5%") or a fraction ("0.01"), from 0 to 1000 %. */
int compare_parse_noise(const char *s, double *noise)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return -1;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end || v > 10)
        return -1;
    *noise = v;
    return 0;
}

/* A region that ran (completed calls, or a left-out function's sampled time) and is
   reported. */
static int region_present(const struct region *r)
{
    return !r->excluded && (r->cost.n > 0 || r->left_out);
}

/* The region's total (outer) time in each run of m, 0 where it did not run; runs counts the
   runs in which it ran. */
static double *per_run(const struct model *m, const struct region *r, size_t *runs)
{
    double *v = xmalloc((m->nruns ? m->nruns : 1) * sizeof *v);
    *runs = 0;
    for (size_t k = 0; k < m->nruns; k++) {
        struct region_col c = region_run(r, k);
        /* a left-out function ran where it took samples: its calls were not counted */
        int ran = c.calls > 0 || (r->left_out && c.sum2 > 0);
        v[k] = ran ? c.sum2 : 0;
        *runs += ran;
    }
    return v;
}

/* Present regions of a model sorted by id bytes, for the merge of the two sides. */
static int by_name(const void *x, const void *y, void *ctx)
{
    const struct model *m = ctx;
    const struct region *a = &m->regions[*(const size_t *)x];
    const struct region *b = &m->regions[*(const size_t *)y];
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}
static size_t *present_sorted(const struct model *m, size_t *n)
{
    size_t *idx = xmalloc((m->nregions ? m->nregions : 1) * sizeof *idx);
    *n = 0;
    for (size_t i = 0; i < m->nregions; i++)
        if (region_present(&m->regions[i]))
            idx[(*n)++] = i;
    qsort_r(idx, *n, sizeof *idx, by_name, (void *)(uintptr_t)m);
    return idx;
}

/* Display order: both sides by |log ratio| (undefined ratios last), then added, then removed,
   each group by the larger median first; names break ties. */
static int group_of(const struct compare_row *r)
{
    return r->verdict == VERDICT_ADDED ? 1 : r->verdict == VERDICT_REMOVED ? 2 : 0;
}
static int by_change(const void *x, const void *y)
{
    const struct compare_row *a = x, *b = y;
    int ga = group_of(a), gb = group_of(b);
    if (ga != gb)
        return ga - gb;
    if (ga == 0) {
        /* A ratio of 0 (the region stopped running in most new runs) is the biggest change of
           all: |log 0| is infinite. Only undefined ratios (NaN) go last. */
        double la = fabs(log(a->ratio)), lb = fabs(log(b->ratio));
        int fa = !isnan(la), fb = !isnan(lb);
        if (fa != fb)
            return fb - fa;
        if (fa && la != lb)
            return la < lb ? 1 : -1;
    }
    double ma = ga == 2 ? a->base_median : a->new_median;
    double mb = gb == 2 ? b->base_median : b->new_median;
    if (ma != mb)
        return ma < mb ? 1 : -1;
    return strcmp(a->display, b->display);
}

/* Fill the statistics of a region found on both sides. */
static void row_stats(struct compare_row *row, size_t nbase, size_t nnew,
                      const struct compare_options *opt, const struct region *r)
{
    row->base_median = compare_median(row->base, nbase);
    row->new_median = compare_median(row->new, nnew);
    row->base_mean = mean_of(row->base, nbase);
    row->new_mean = mean_of(row->new, nnew);
    row->ratio = row->base_median > 0 ? row->new_median / row->base_median : NAN;
    row->change = row->ratio - 1;
    row->test = compare_mwu(row->base, nbase, row->new, nnew);
    struct compare_rng g;
    /* The region's own bootstrap stream. The hash starts from a basis of its own, kept from
       earlier versions so that the same --seed gives the same intervals. */
    compare_rng_seed(&g, opt->seed ^ prof_hash_more(1469598103934665603ull, r->name, r->len));
    compare_bootstrap(row->base, nbase, row->new, nnew, opt->resamples, &g, &row->ratio_low,
                      &row->ratio_high);
}

/* The geometric mean's bootstrap interval over the regions in it, and what it says: a
   change only when the whole interval lies on one side of 1 and the mean moved by more than
   the noise threshold. */
static void geomean_interval(struct comparison *c)
{
    c->geomean_low = c->geomean_high = NAN;
    c->geomean_verdict = VERDICT_SAME;
    if (c->ngeomean == 0)
        return;
    const double **a = xmalloc(c->ngeomean * sizeof *a), **b = xmalloc(c->ngeomean * sizeof *b);
    size_t k = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const struct compare_row *row = &c->rows[i];
        if (row->base && row->new &&isfinite(row->ratio) && row->ratio > 0) {
            a[k] = row->base;
            b[k++] = row->new;
        }
    }
    /* A stream of its own, apart from every region's: the same --seed, the same interval. */
    struct compare_rng g;
    compare_rng_seed(&g, c->opt.seed ^ COMPARE_GEOMEAN_STREAM);
    compare_geomean_bootstrap(a, c->nbase, b, c->nnew, k, c->opt.resamples, &g, &c->geomean_low,
                              &c->geomean_high);
    /* The regions' rule: outside the noise threshold too. */
    if (c->geomean_low > 1 && c->geomean - 1 > c->opt.noise)
        c->geomean_verdict = VERDICT_SLOWER;
    else if (c->geomean_high < 1 && 1 - c->geomean > c->opt.noise)
        c->geomean_verdict = VERDICT_FASTER;
    free(a);
    free(b);
}

/* Compare the two models region by region. */
void compare_build(const struct model *base, const struct model *new,
                   const struct compare_options *opt, struct comparison *c)
{
    memset(c, 0, sizeof *c);
    c->opt = *opt;
    c->nbase = base->nruns;
    c->nnew = new->nruns;
    c->base_model = base;
    c->new_model = new;
    size_t nb, nn;
    size_t *bi = present_sorted(base, &nb), *ni = present_sorted(new, &nn);
    c->rows = xcalloc(nb + nn + 1, sizeof *c->rows);
    size_t i = 0, j = 0;
    while (i < nb || j < nn) {
        int order;
        if (i == nb)
            order = 1;
        else if (j == nn)
            order = -1;
        else {
            const struct region *a = &base->regions[bi[i]], *b = &new->regions[ni[j]];
            size_t n = a->len < b->len ? a->len : b->len;
            order = memcmp(a->name, b->name, n);
            if (!order)
                order = (a->len > b->len) - (a->len < b->len);
        }
        struct compare_row *row = &c->rows[c->nrows++];
        row->ratio = row->ratio_low = row->ratio_high = row->change = NAN;
        row->base_median = row->new_median = row->base_mean = row->new_mean = NAN;
        row->test = (struct compare_mwu){NAN, NAN, 0};
        row->q = NAN;
        const struct region *rb = order <= 0 ? &base->regions[bi[i]] : NULL;
        const struct region *rn = order >= 0 ? &new->regions[ni[j]] : NULL;
        if (rb)
            row->base = per_run(base, rb, &row->base_runs);
        if (rn)
            row->new = per_run(new, rn, &row->new_runs);
        row->display = rn ? rn->display : rb->display;
        if (rb && rn) {
            row_stats(row, c->nbase, c->nnew, opt, rn);
            c->nboth++;
        } else if (rn) {
            row->verdict = VERDICT_ADDED;
            row->new_median = compare_median(row->new, c->nnew);
            row->new_mean = mean_of(row->new, c->nnew);
            c->added++;
        } else {
            row->verdict = VERDICT_REMOVED;
            row->base_median = compare_median(row->base, c->nbase);
            row->base_mean = mean_of(row->base, c->nbase);
            c->removed++;
        }
        i += order <= 0;
        j += order >= 0;
    }
    free(bi);
    free(ni);

    /* Adjust the p-values of the regions on both sides together, then judge each. */
    double *p = xmalloc((c->nrows ? c->nrows : 1) * sizeof *p);
    double *q = xmalloc((c->nrows ? c->nrows : 1) * sizeof *q);
    for (size_t k = 0; k < c->nrows; k++)
        p[k] = c->rows[k].verdict == VERDICT_SAME ? c->rows[k].test.p : NAN;
    compare_bh(p, c->nrows, q);
    double logsum = 0;
    for (size_t k = 0; k < c->nrows; k++) {
        struct compare_row *row = &c->rows[k];
        if (row->verdict != VERDICT_SAME)
            continue;
        row->q = q[k];
        /* The direction: the medians', or the means' when the baseline median is 0. */
        double d = isfinite(row->change) ? row->change
                   : row->base_mean > 0  ? row->new_mean / row->base_mean - 1
                                         : NAN;
        if (row->q < opt->alpha && isfinite(d) && fabs(d) > opt->noise) {
            row->verdict = d > 0 ? VERDICT_SLOWER : VERDICT_FASTER;
            if (d > 0)
                c->slower++;
            else
                c->faster++;
        }
        if (isfinite(row->ratio) && row->ratio > 0) {
            logsum += log(row->ratio);
            c->ngeomean++;
        }
    }
    c->geomean = c->ngeomean ? exp(logsum / (double)c->ngeomean) : NAN;
    free(p);
    free(q);
    geomean_interval(c);
    qsort(c->rows, c->nrows, sizeof *c->rows, by_change);

    c->min_p = compare_mwu_min_p(c->nbase, c->nnew);
    if (c->nbase < COMPARE_MIN_RUNS || c->nnew < COMPARE_MIN_RUNS) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "fewer runs than the test needs: %zu baseline and %zu new run%s; with these the "
                 "smallest p-value the Mann-Whitney test can give is %.3g, so %s; use at least "
                 "%d runs per side",
                 c->nbase, c->nnew, c->nnew == 1 ? "" : "s", c->min_p,
                 c->min_p >= opt->alpha ? "no change can be significant"
                                        : "only a change in few regions can be significant",
                 COMPARE_MIN_RUNS);
        c->warning = xstrdup(buf);
    }
}

int compare_matrix_note(const struct comparison *c, char *buf, size_t size)
{
    if (c->nbase <= COMPARE_MATRIX_RUNS && c->nnew <= COMPARE_MATRIX_RUNS)
        return 0;
    snprintf(buf, size,
             "the Comparison runs sheet's region x run table has a column for the first %d runs "
             "of each side only (%zu baseline and %zu new runs; a sheet has 16,384 columns): "
             "the runs table above it and the statistics hold every run",
             COMPARE_MATRIX_RUNS, c->nbase, c->nnew);
    return 1;
}

/* Free what the comparison owns. */
void compare_release(struct comparison *c)
{
    for (size_t i = 0; i < c->nrows; i++) {
        free(c->rows[i].base);
        free(c->rows[i].new);
    }
    free(c->rows);
    free(c->warning);
    memset(c, 0, sizeof *c);
}
