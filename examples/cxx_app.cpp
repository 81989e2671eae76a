/*
 * cxx_app.cpp - profreport from C++17: RAII scopes in class methods, a recursive function,
 * std::sort, and scopes that close correctly while an exception unwinds.
 *
 *   c++ -std=c++17 cxx_app.cpp $(pkg-config --cflags --libs profreport) -o cxx_app
 *   ./cxx_app [lines]          (default: 2000 lines of input, 1 in 25 malformed)
 *
 * An inventory is parsed from generated text lines ("generate" and "report" are
 * PROFILER_START/STOP pairs in main). Inventory::parse_line throws std::invalid_argument for a
 * line without three fields, and parse_quantity, called from it, for a bad number;
 * Inventory::load catches both higher up. While an exception unwinds, the PROFILER_SCOPE guards
 * it passes close their regions, so the run file has no unterminated region and every later row
 * still has the right parent. sum_value is recursive (its inner calls have Nested = 1), and
 * Inventory::sort_by_value wraps a std::sort.
 */
#include <profreport.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

// One line of the inventory.
struct Item {
    std::string name;
    long quantity;
    double price;
};

// The quantity field of a line: a whole number, or std::invalid_argument.
long parse_quantity(const std::string &field)
{
    PROFILER_SCOPE("parse_quantity");
    if (field.empty() || field.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("bad quantity '" + field + "'");
    return std::strtol(field.c_str(), nullptr, 10);
}

// The value of items[lo, hi), halving the range until it is small (recursive).
double sum_value(const std::vector<Item> &items, size_t lo, size_t hi)
{
    PROFILER_SCOPE("sum_value");
    if (hi - lo <= 64) {
        double sum = 0;
        for (size_t i = lo; i < hi; i++)
            sum += static_cast<double>(items[i].quantity) * items[i].price;
        return sum;
    }
    size_t mid = lo + (hi - lo) / 2;
    return sum_value(items, lo, mid) + sum_value(items, mid, hi);
}

// Items parsed from "name,quantity,price" lines; malformed lines are counted and skipped.
class Inventory
{
  public:
    // Parse every line, skipping the ones parse_line rejects.
    void load(const std::vector<std::string> &lines)
    {
        PROFILER_SCOPE("Inventory::load");
        items_.reserve(lines.size());
        for (const std::string &line : lines) {
            try {
                items_.push_back(parse_line(line));
            } catch (const std::invalid_argument &) {
                rejected_++; // the scopes of parse_line and parse_quantity are closed by now
            }
        }
    }

    // Order the items by value, largest first.
    void sort_by_value()
    {
        PROFILER_SCOPE("Inventory::sort_by_value");
        std::sort(items_.begin(), items_.end(), [](const Item &a, const Item &b) {
            return static_cast<double>(a.quantity) * a.price >
                   static_cast<double>(b.quantity) * b.price;
        });
    }

    // The value of the whole inventory.
    double total_value() const
    {
        PROFILER_SCOPE("Inventory::total_value");
        return items_.empty() ? 0.0 : sum_value(items_, 0, items_.size());
    }

    // The names of the first n items, joined by spaces ("-" when there are none).
    std::string top(size_t n) const
    {
        std::string out;
        for (size_t i = 0; i < n && i < items_.size(); i++)
            out += (i ? " " : "") + items_[i].name;
        return out.empty() ? "-" : out;
    }

    // The number of items loaded.
    size_t size() const { return items_.size(); }

    // The number of lines rejected as malformed.
    size_t rejected() const { return rejected_; }

  private:
    // One item from one line; throws std::invalid_argument when the line is malformed.
    static Item parse_line(const std::string &line)
    {
        PROFILER_SCOPE("Inventory::parse_line");
        std::vector<std::string> fields;
        {
            PROFILER_SCOPE("split");
            size_t start = 0;
            for (;;) {
                size_t comma = line.find(',', start);
                fields.push_back(line.substr(start, comma - start));
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
        }
        if (fields.size() != 3)
            throw std::invalid_argument("expected 3 fields");
        Item item{fields[0], parse_quantity(fields[1]), std::strtod(fields[2].c_str(), nullptr)};
        return item;
    }

    std::vector<Item> items_;
    size_t rejected_ = 0;
};

// Input lines from a fixed seed; 1 in 25 is malformed (a bad quantity, or no price).
std::vector<std::string> generate(size_t n)
{
    std::mt19937 rng(12345);
    std::uniform_int_distribution<long> quantity(1, 500);
    std::uniform_int_distribution<int> cents(99, 99999);
    std::vector<std::string> lines;
    lines.reserve(n);
    for (size_t i = 0; i < n; i++) {
        long q = quantity(rng);
        int c = cents(rng);
        char buf[96];
        if (i % 50 == 24)
            std::snprintf(buf, sizeof buf, "item-%zu,%ldx,%d.%02d", i, q, c / 100, c % 100);
        else if (i % 50 == 49)
            std::snprintf(buf, sizeof buf, "item-%zu,%ld", i, q);
        else
            std::snprintf(buf, sizeof buf, "item-%zu,%ld,%d.%02d", i, q, c / 100, c % 100);
        lines.emplace_back(buf);
    }
    return lines;
}

} // namespace

// Generate the input, load, sort and total the inventory, and print a summary.
int main(int argc, char **argv)
{
    char *end = nullptr;
    long n = argc > 1 ? std::strtol(argv[1], &end, 10) : 2000;
    if (argc > 2 || (end && (end == argv[1] || *end)) || n < 0 || n > 10000000) {
        std::fprintf(stderr, "usage: %s [lines (0-10000000)]\n", argv[0]);
        return 2;
    }

    PROFILER_START("generate");
    std::vector<std::string> lines = generate(static_cast<size_t>(n));
    PROFILER_STOP();

    Inventory inventory;
    inventory.load(lines);
    inventory.sort_by_value();
    double total = inventory.total_value();

    PROFILER_START("report");
    std::printf("cxx_app: %zu items loaded, %zu rejected, total value %.2f, top 3: %s\n",
                inventory.size(), inventory.rejected(), total, inventory.top(3).c_str());
    PROFILER_STOP();
    return 0;
}
