// SPDX-License-Identifier: MIT
// W3 `results`: the lines of a classifier's results file, written with `<<`
// through iostreams, the way a large C++ program built on std::ostream and
// std::endl writes them. Each of the 524,288 lines is a test instance: a
// dozen comma-separated feature values, the predicted class and the class
// distribution:
//
//   17,-325,4375,210,-12,625,...,A,{ A 0.8125, B 0.1875 }
//
// This is the case of the issue that asked for the iostream adapter: such a
// program spent ~82% of its time in write(), one per std::endl, and a 1 MiB
// pubsetbuf() with '\n' instead of std::endl made it 6.5 times faster, but
// only after every output line was edited. The contenders:
//
//   ofstream_endl             the original: std::ofstream, std::endl
//   ofstream_1m               the fix that edits every line: a 1 MiB
//                             pubsetbuf() and '\n' (the reference)
//   fastout_ostream           fastout::ofstream, std::endl, standard flushing
//   fastout_ostream_deferred  the same with flush_policy::on_close: the fix
//                             in one place, the lines unchanged
//   fastout                   the same lines through fastout::file's own <<,
//                             for a program that can change the stream's type
//
// The features are integers (counts and codes) and the distribution two
// doubles, so that, as in that program, formatting a line costs much less
// than writing it: with a dozen doubles, libstdc++'s num_put (vsnprintf per
// value) cost about as much as the write(), and no buffer could give more
// than ~2x. The probabilities are ten-thousandths, which iostreams' "%g"
// and fastout's shortest round trip write alike, so every contender writes
// the same bytes.
#include <cstdint>
#include <fstream>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <vector>

#include <fastout/file.h>

#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

constexpr std::size_t line_count = 524288;
constexpr std::size_t feature_count = 12;

struct results_input {
  std::vector<std::int32_t> features;  // line i's start at i * feature_count
  std::vector<double> distribution;    // line i's P(A) and P(B) at 2 * i
};

std::shared_ptr<const results_input> make_input(bool list_only) {
  auto input = std::make_shared<results_input>();
  if (list_only) return input;
  input->features.resize(line_count * feature_count);
  input->distribution.resize(line_count * 2);
  std::mt19937_64 random(3);  // fixed: the same values in every run
  std::uniform_int_distribution<std::int32_t> count(0, 999);
  std::uniform_int_distribution<std::int32_t> code(-999, 999);
  std::uniform_int_distribution<std::int32_t> measure(0, 99999);
  std::uniform_int_distribution<int> probability(0, 10000);
  for (std::size_t i = 0; i < line_count; ++i) {
    std::int32_t* f = &input->features[i * feature_count];
    for (std::size_t j = 0; j < feature_count; ++j)
      f[j] = j % 3 == 0 ? count(random) : j % 3 == 1 ? code(random) : measure(random);
    int a = probability(random);
    input->distribution[2 * i] = a / 10000.0;
    input->distribution[2 * i + 1] = (10000 - a) / 10000.0;
  }
  return input;
}

// One line, in the idiom every contender shares; `end` is std::endl or '\n'.
template <typename Out, typename End>
inline void write_line(Out& out, const std::int32_t* features, const double* distribution,
                       const End& end) {
  for (std::size_t j = 0; j < feature_count; ++j) out << features[j] << ',';
  const double a = distribution[0], b = distribution[1];
  out << (a >= b ? 'A' : 'B') << ",{ A " << a << ", B " << b << " }" << end;
}

std::vector<contender> results_contenders(const std::shared_ptr<const results_input>& input) {
  const std::int32_t* const features = input->features.data();
  const double* const distribution = input->distribution.data();
  auto with_endl = [features, distribution](auto& out, std::size_t i) {
    write_line(out, features + i * feature_count, distribution + 2 * i,
               std::endl<char, std::char_traits<char>>);
  };
  auto with_newline = [features, distribution](auto& out, std::size_t i) {
    write_line(out, features + i * feature_count, distribution + 2 * i, '\n');
  };

  contender_list c(input, input->distribution.size() / 2);
  c.add<ofstream_sink>("ofstream_endl", with_endl);
  c.add<ofstream_sink>("ofstream_1m", with_newline, buffer_1m);
  c.add<fastout_ostream_sink>("fastout_ostream", with_endl);
  c.add<fastout_ostream_sink>("fastout_ostream_deferred", with_endl, deferred_flushes);
  c.add<fastout_sink>("fastout", with_newline);
  return c.take();
}

}  // namespace

workload make_results(const workload_options& options) {
  auto input = make_input(options.list_only);
  workload w;
  w.reference = "ofstream_1m";
  w.baseline = "ofstream_endl";
  // The size of the output: the lines written into memory, once.
  if (!options.list_only) {
    std::ostringstream line;
    for (std::size_t i = 0; i < line_count; ++i) {
      line.str({});
      write_line(line, &input->features[i * feature_count], &input->distribution[2 * i], '\n');
      w.bytes += line.str().size();
    }
  }
  w.contenders = results_contenders(input);
  return w;
}

}  // namespace fastout_bench
