"""pandas_groupby.py - the reporter benchmark's pandas peer (bench/README.md).

Reads a seed-form run file (docs/FORMAT.md section 2: a Frequency line, then id,delta rows) and
prints, per id, the statistics datamash computes: count, sum, mean, min, max, sample standard
deviation, median and the 99th percentile.

    python3 pandas_groupby.py FILE
"""

import sys

import pandas as pd


def main():
    df = pd.read_csv(sys.argv[1], skiprows=1, header=None, names=["id", "delta"])
    g = df.groupby("id", sort=True)["delta"]
    out = g.agg(["count", "sum", "mean", "min", "max", "std", "median"])
    out["p99"] = g.quantile(0.99)
    out.to_csv(sys.stdout)


if __name__ == "__main__":
    main()
