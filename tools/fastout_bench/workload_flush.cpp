// SPDX-License-Identifier: MIT
// W16 `flush`: records written and flushed one at a time, as seqtk comp and
// many other tools do so that a reader downstream sees each record at once:
// a short tab-separated line per record -- a name and five integers,
// "%s\t%d\t%d\t%d\t%d\t%d\n" -- then a flush. Every contender makes one
// write() per record; what differs is what a call and a flush cost around
// it. fprintf + fflush is the baseline; fastout_printf is the C API's
// fastout_fprintf() + fastout_flush(); fastout, fmt_output_file and ofstream
// are C++'s print() or << and flush(); limit formats the record with {fmt}'s
// compiled format into a local buffer and write()s it: the least a record
// flushed on its own can cost, and the reference every output must match.
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/c_api.h>
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

// A record as seqtk comp prints one: the sequence's name, its length, and
// how many of its bases are A, C, G and T.
struct flush_record {
  std::uint32_t name_offset;  // into flush_input::names, NUL-terminated
  int length;
  int a, c, g, t;
};

struct flush_input {
  std::vector<flush_record> records;
  std::string names;
};

// A name of at most 20 bytes, five integers of at most 11, five tabs and a
// newline: 81 bytes at most.
constexpr std::size_t flush_row_bound = 96;

std::vector<contender> flush_contenders(const std::shared_ptr<const flush_input>& input) {
  const flush_record* const records = input->records.data();
  const char* const names = input->names.data();

  auto print = [records, names](auto& out, std::size_t i) {
    const flush_record& r = records[i];
    out.print("{}\t{}\t{}\t{}\t{}\t{}\n", names + r.name_offset, r.length, r.a, r.c, r.g, r.t);
    out.flush();
  };

  contender_list c(input, input->records.size());
  c.add<stdio_sink>("fprintf", [records, names](std::FILE* f, std::size_t i) {
    const flush_record& r = records[i];
    std::fprintf(f, "%s\t%d\t%d\t%d\t%d\t%d\n", names + r.name_offset, r.length, r.a, r.c, r.g,
                 r.t);
    std::fflush(f);
  });
  c.add<fastout_c_sink>("fastout_printf", [records, names](fastout_file* f, std::size_t i) {
    const flush_record& r = records[i];
    fastout_fprintf(f, "%s\t%d\t%d\t%d\t%d\t%d\n", names + r.name_offset, r.length, r.a, r.c, r.g,
                    r.t);
    fastout_flush(f);
  });
  c.add<fastout_sink>("fastout", print);
  c.add<fmt_file_sink>("fmt_output_file", print);
  c.add<ofstream_sink>("ofstream", [records, names](std::ofstream& out, std::size_t i) {
    const flush_record& r = records[i];
    out << names + r.name_offset << '\t' << r.length << '\t' << r.a << '\t' << r.c << '\t' << r.g
        << '\t' << r.t << '\n';
    out.flush();
  });
  c.add<unbuffered_sink>("limit", [records, names](unbuffered_sink::writer out, std::size_t i) {
    const flush_record& r = records[i];
    char text[flush_row_bound];
    char* end = fmt::format_to(text, FMT_COMPILE("{}\t{}\t{}\t{}\t{}\t{}\n"), names + r.name_offset,
                               r.length, r.a, r.c, r.g, r.t);
    out.write(text, static_cast<std::size_t>(end - text));
  });
  return c.take();
}

}  // namespace

workload make_flush(const workload_options& options) {
  auto input = std::make_shared<flush_input>();
  input->records.resize(options.count(200000, 50000));
  std::mt19937_64 random(16);
  std::uniform_int_distribution<int> length(50, 300);
  std::uniform_int_distribution<int> run(1, 9);
  std::uint64_t spot = 1000000;
  for (std::size_t i = 0; i < input->records.size(); ++i) {
    flush_record& r = input->records[i];
    // Reads named as the Sequence Read Archive names them: run.spot.
    spot += static_cast<std::uint64_t>(run(random));
    r.name_offset = static_cast<std::uint32_t>(input->names.size());
    input->names += fmt::format("SRR062634.{}", spot);
    input->names += '\0';
    r.length = length(random);
    std::uniform_int_distribution<int> share(0, r.length / 4);
    r.a = share(random);
    r.c = share(random);
    r.g = share(random);
    r.t = share(random);
  }
  const flush_record* const records = input->records.data();
  const char* const names = input->names.data();
  workload w;
  w.bytes = formatted_size(
      input->records.size(), flush_row_bound, [records, names](char* pos, std::size_t i) {
        const flush_record& r = records[i];
        return fmt::format_to(pos, FMT_COMPILE("{}\t{}\t{}\t{}\t{}\t{}\n"), names + r.name_offset,
                              r.length, r.a, r.c, r.g, r.t);
      });
  w.reference = "limit";  // the least a record flushed on its own can cost
  w.baseline = "fprintf";
  w.contenders = flush_contenders(input);
  return w;
}

}  // namespace fastout_bench
