"""check_workbook.py - the reporter benchmark's check of profreport's workbook (bench/README.md).

Prints "regions N calls N": the rows of the Call cost sheet and the sum of its Calls column.

    python3 check_workbook.py REPORT.xlsx
"""

import sys

import openpyxl


def main():
    wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
    rows = wb["Call cost"].iter_rows(values_only=True)
    header = next(rows)
    if header[0] != "Region" or header[1] != "Calls":
        sys.exit("unexpected Call cost header: %r" % (header[:2],))
    regions = calls = 0
    for row in rows:
        if row and row[0] is not None:
            regions += 1
            calls += int(row[1])
    print("regions %d calls %d" % (regions, calls))


if __name__ == "__main__":
    main()
