// SPDX-License-Identifier: MIT
// W17 `many` (issue 28): one thread writing many outputs, as a
// demultiplexer writes one FASTQ file per barcode, split-by-key tools and
// partitioned exports write one file per key, and awk's `print > $1` does.
// Seven tables, each a workload of its own (bench.h):
//
//   W17_1k, W17_10k            1,000 and 10,000 plain outputs, the records
//                              sent by a skewed key
//   W17_1k_even, W17_10k_even  the same outputs, the records dealt to them
//                              in turn: every output as busy as every other,
//                              the worst case for a memory budget
//   W17_1k_gz                  W17_1k's records, compressed (gzip -6)
//   W17_10k_fd                 W17_10k under a descriptor limit of 256
//   W17_10k_fd_hard            the same with the hard limit at 256 too
//
// A record is a FASTQ record of 93 to 113 bytes (about 103), taken in turn
// from 65,536 made once with a fixed seed; 1 GiB of them in all (plain: 8
// MiB, gzip: 4 MiB with --quick). The skewed key is Zipf's law with
// exponent 1: the output of rank r (from 1) gets a record with probability
// proportional to 1/r, so that a few outputs take much and a long tail
// takes a little each: with 1,000 outputs the busiest takes 13% of the
// records, the ten busiest 39% and the 900 thinnest 31% together; with
// 10,000, 10%, 30% and (the 9,000 thinnest) 24%. The ranks are dealt to
// the outputs in an order shuffled with a fixed seed, and each record's key
// is drawn with a fixed seed too.
//
// Every contender opens its outputs first, all of them, in order (a
// demultiplexer given its barcodes does), writes every record to its
// output, and closes them all, checking every error; the outputs are
// `00000.fastq` to `09999.fastq` (`.fastq.gz`) in a directory the driver
// makes for the run. Each run is made in a child process, which reports its
// peak resident set and threads beside the time and write calls (measure.h).
// Every output of each contender's first run is checked against the bytes
// it must hold, computed from the input (decompressed, for gzip): no
// reference file is written.
//
// W17 is POSIX-only: it runs in child processes made with fork(), W17_10k_fd
// sets RLIMIT_NOFILE with setrlimit(), and the peak resident set is read
// from /proc; the Windows build of the driver does not have it (bench.h).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <dirent.h>
#include <sys/resource.h>

// fastout before {fmt}: see sinks.h.
#include <fastout/c_api.h>
#include <fastout/compression.h>
#include <fastout/file.h>

#include <fmt/format.h>
#include <fmt/os.h>

#include "bench.h"
#include "compressed_sinks.h"
#include "decompress.h"
#include "libraries.h"
#include "many_outputs.h"
#include "measure.h"
#include "sinks.h"

#if FASTOUT_BENCH_HAVE_HTSLIB
#  include <htslib/thread_pool.h>
#endif

namespace fastout_bench {
namespace {

// The records every table writes, made once.
struct record_pool {
  static constexpr std::size_t count = std::size_t{1} << 16;  // a power of two: i & mask
  std::vector<char> text;                                     // the records, one after another
  std::vector<std::uint32_t> starts;                          // count + 1 offsets into text
};

std::shared_ptr<const record_pool> make_record_pool() {
  static const std::shared_ptr<const record_pool> made = [] {
    auto pool = std::make_shared<record_pool>();
    std::mt19937_64 random(17);  // fixed: the same records in every run
    std::uniform_int_distribution<int> length(38, 48);
    std::uniform_int_distribution<int> base(0, 99);
    std::uniform_int_distribution<int> quality(0, 99);
    pool->starts.push_back(0);
    std::string record;
    for (std::size_t j = 0; j < record_pool::count; ++j) {
      // @read0000042 / bases / + / qualities, as a sequencer's FASTQ: mostly
      // ACGT with a rare N, and binned qualities, mostly 'F'.
      const int bases = length(random);
      record = fmt::format("@read{:07}\n", j);
      for (int b = 0; b < bases; ++b) {
        int pick = base(random);
        record += pick == 0 ? 'N' : "ACGT"[pick % 4];
      }
      record += "\n+\n";
      for (int b = 0; b < bases; ++b) {
        int pick = quality(random);
        record += pick < 80 ? 'F' : pick < 90 ? ':' : pick < 97 ? ',' : '#';
      }
      record += '\n';
      pool->text.insert(pool->text.end(), record.begin(), record.end());
      pool->starts.push_back(static_cast<std::uint32_t>(pool->text.size()));
    }
    return pool;
  }();
  return made;
}

enum class key_pattern { skewed, even };

// One table's input: which output each record goes to, and what every
// output must hold.
struct many_input {
  std::shared_ptr<const record_pool> pool;
  std::vector<std::uint16_t> keys;  // record i goes to output keys[i]
  std::size_t outputs = 0;
  std::uint64_t bytes = 0;  // all records, as text

  // Record i is pool record i & mask.
  std::size_t record_size(std::size_t i) const {
    const std::size_t r = i & (record_pool::count - 1);
    return pool->starts[r + 1] - pool->starts[r];
  }

  // Each output's records, in order (made on the first check, in the
  // driver's process): output k's are records_[first_[k]] to
  // records_[first_[k + 1] - 1].
  void index_outputs() const {
    std::call_once(indexed_, [this] {
      first_.assign(outputs + 1, 0);
      for (std::uint16_t key : keys) ++first_[key + 1];
      std::partial_sum(first_.begin(), first_.end(), first_.begin());
      records_.resize(keys.size());
      std::vector<std::uint32_t> next(first_.begin(), first_.end() - 1);
      for (std::size_t i = 0; i < keys.size(); ++i)
        records_[next[keys[i]]++] = static_cast<std::uint32_t>(i);
    });
  }
  mutable std::once_flag indexed_;
  mutable std::vector<std::uint32_t> first_;
  mutable std::vector<std::uint32_t> records_;
};

// The keys of `count` records over `outputs` outputs (see the top of the
// file), made once per pattern, number of outputs and count: W17_10k and
// W17_10k_fd share theirs.
std::shared_ptr<const many_input> make_many_input(std::size_t outputs, key_pattern pattern,
                                                  std::size_t count) {
  static std::map<std::tuple<std::size_t, key_pattern, std::size_t>,
                  std::shared_ptr<const many_input>>
      made;
  auto& slot = made[std::make_tuple(outputs, pattern, count)];
  if (slot != nullptr) return slot;
  auto input = std::make_shared<many_input>();
  input->pool = make_record_pool();
  input->outputs = outputs;
  input->keys.resize(count);
  if (pattern == key_pattern::even) {
    for (std::size_t i = 0; i < count; ++i)
      input->keys[i] = static_cast<std::uint16_t>(i % outputs);
  } else {
    // Zipf's law, exponent 1: the cumulative weights of the ranks, and the
    // output each rank is dealt to.
    std::vector<double> cumulative(outputs);
    double total = 0;
    for (std::size_t r = 0; r < outputs; ++r)
      cumulative[r] = total += 1.0 / static_cast<double>(r + 1);
    std::vector<std::uint16_t> output_of_rank(outputs);
    std::iota(output_of_rank.begin(), output_of_rank.end(), std::uint16_t{0});
    std::mt19937_64 random(1728);  // fixed: the same keys in every run
    std::shuffle(output_of_rank.begin(), output_of_rank.end(), random);
    for (std::size_t i = 0; i < count; ++i) {
      // A uniform double in [0, total) from the top 53 bits.
      const double u = static_cast<double>(random() >> 11) * 0x1p-53 * total;
      const std::size_t rank = static_cast<std::size_t>(
          std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
      input->keys[i] = output_of_rank[std::min(rank, outputs - 1)];
    }
  }
  for (std::size_t i = 0; i < count; ++i) input->bytes += input->record_size(i);
  slot = input;
  return input;
}

// How many records make about `bytes` of text.
std::size_t records_for(std::uint64_t bytes) {
  const auto pool = make_record_pool();
  const double mean = static_cast<double>(pool->text.size()) / record_pool::count;
  return static_cast<std::size_t>(static_cast<double>(bytes) / mean);
}

std::string output_path(const char* directory, std::size_t k, bool compressed) {
  return fmt::format("{}/{:05}.fastq{}", directory, k, compressed ? ".gz" : "");
}

// What a row is given: a reference where the sink's out() returns one
// (fastout::file&, fmt::ostream&), kept as a pointer; the value otherwise
// (FILE*, fastout_file*, gzFile, htslib's writer).
template <typename Sink>
using out_type = decltype(std::declval<Sink&>().out());
template <typename Sink>
constexpr bool out_is_reference = std::is_lvalue_reference<out_type<Sink>>::value;
template <typename Sink>
using handle_type = std::conditional_t<out_is_reference<Sink>,
                                       std::remove_reference_t<out_type<Sink>>*, out_type<Sink>>;

// One run: opens every output of `input` in `directory` with a `Sink`,
// then for every record calls row(out, data, size) with the out() of its
// output, then closes them all; the first failure throws, and the sinks
// not yet closed are released by their destructors.
template <typename Sink, typename Row>
void write_outputs(const char* directory, const many_input& input, const sink_options& options,
                   bool compressed, Row row) {
  std::vector<std::string> paths(input.outputs);
  std::deque<Sink> sinks;
  std::vector<handle_type<Sink>> handles;
  handles.reserve(input.outputs);
  for (std::size_t k = 0; k < input.outputs; ++k) {
    paths[k] = output_path(directory, k, compressed);
    sinks.emplace_back(paths[k].c_str(), options);
    if constexpr (out_is_reference<Sink>)
      handles.push_back(&sinks.back().out());
    else
      handles.push_back(sinks.back().out());
  }
  const char* const text = input.pool->text.data();
  const std::uint32_t* const starts = input.pool->starts.data();
  const std::uint16_t* const keys = input.keys.data();
  const std::size_t count = input.keys.size();
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t r = i & (record_pool::count - 1);
    const char* data = text + starts[r];
    const std::size_t size = starts[r + 1] - starts[r];
    if constexpr (out_is_reference<Sink>)
      row(*handles[keys[i]], data, size);
    else
      row(handles[keys[i]], data, size);
  }
  // Every output is written and open: a writer that keeps threads per
  // output has them all now.
  note_threads();
  for (auto& sink : sinks) sink.close();
}

// The text output k must hold: its records, in order.
class output_text : public expected_text {
 public:
  output_text(const many_input& input, std::size_t k)
      : text_(input.pool->text.data()),
        starts_(input.pool->starts.data()),
        next_(input.records_.data() + input.first_[k]),
        end_(input.records_.data() + input.first_[k + 1]) {}

  std::size_t read(char* data, std::size_t size) override {
    std::size_t done = 0;
    while (done < size) {
      if (left_ == 0) {
        if (next_ == end_) break;
        const std::size_t r = *next_++ & (record_pool::count - 1);
        piece_ = text_ + starts_[r];
        left_ = starts_[r + 1] - starts_[r];
      }
      const std::size_t n = std::min(left_, size - done);
      std::memcpy(data + done, piece_, n);
      piece_ += n;
      left_ -= n;
      done += n;
    }
    return done;
  }

 private:
  const char* text_;
  const std::uint32_t* starts_;
  const std::uint32_t* next_;
  const std::uint32_t* end_;
  const char* piece_ = nullptr;
  std::size_t left_ = 0;
};

// Checks every output of a run in `directory`, and that there is nothing
// else there.
std::string check_every_output(const many_input& input, const std::string& directory,
                               output_format format) {
  input.index_outputs();
  const bool compressed = format != output_format::plain;
  for (std::size_t k = 0; k < input.outputs; ++k) {
    const std::string path = output_path(directory.c_str(), k, compressed);
    output_text expected(input, k);
    std::string wrong = check_output(expected, path, format);
    if (!wrong.empty()) return fmt::format("{}: {}", path.substr(directory.size() + 1), wrong);
  }
  std::size_t files = 0;
  if (DIR* dir = ::opendir(directory.c_str())) {
    while (const dirent* entry = ::readdir(dir))
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) ++files;
    ::closedir(dir);
  }
  if (files != input.outputs)
    return fmt::format("{} files where there should be {}", files, input.outputs);
  return {};
}

// Adds a contender that runs write_outputs() with a `Sink`.
template <typename Sink, typename Row>
contender& add_many(std::vector<contender>& list, std::string name,
                    const std::shared_ptr<const many_input>& input, const sink_options& options,
                    output_format format, Row row) {
  contender c;
  c.name = std::move(name);
  c.output = format;
  const bool compressed = format != output_format::plain;
  c.run = [input, options, compressed, row](const char* directory) {
    write_outputs<Sink>(directory, *input, options, compressed, row);
  };
  list.push_back(std::move(c));
  return list.back();
}

// Why a contender is left out of a --quick run.
constexpr const char* quick_leaves_out =
    "left out with --quick, which keeps the contenders this table's bars are judged on";

// The plain contenders, in the order they run. With --quick only those
// named in `quick` run, the ones the table's bars are judged on, and the
// others are listed as absent.
std::vector<contender> plain_contenders(const workload_options& options,
                                        const std::shared_ptr<const many_input>& input,
                                        std::initializer_list<const char*> quick,
                                        std::vector<absent_contender>& absent) {
  auto fwrite_record = [](std::FILE* f, const char* data, std::size_t size) {
    std::fwrite(data, 1, size, f);
  };
  auto fwrite_unlocked_record = [](std::FILE* f, const char* data, std::size_t size) {
    fwrite_unlocked(data, 1, size, f);
  };
  const auto plain = output_format::plain;
  std::vector<contender> list;
  add_many<stdio_sink>(list, "fwrite", input, {}, plain, fwrite_record);
  add_many<stdio_sink>(list, "fwrite_unlocked", input, {}, plain, fwrite_unlocked_record);
  add_many<stdio_sink>(list, "fwrite_unlocked_256k", input, buffer_256k, plain,
                       fwrite_unlocked_record);
  add_many<fmt_file_sink>(list, "fmt_output_file", input, {}, plain,
                          [](fmt::ostream& out, const char* data, std::size_t size) {
                            out.print("{}", fmt::string_view(data, size));
                          });
  add_many<fastout_sink>(
      list, "fastout", input, {}, plain,
      [](fastout::file& out, const char* data, std::size_t size) { out.write(data, size); });
  // The C API, as the C program of issue 28 writes its records.
  add_many<fastout_c_sink>(
      list, "fastout_c", input, {}, plain,
      [](fastout_file* f, const char* data, std::size_t size) { fastout_write(data, 1, size, f); });
  if (!options.quick) return list;
  std::vector<contender> kept;
  for (auto& c : list) {
    if (std::find(quick.begin(), quick.end(), c.name) != quick.end())
      kept.push_back(std::move(c));
    else
      absent.push_back(absent_contender{c.name, quick_leaves_out});
  }
  return kept;
}

// `count` records of `bytes` (or the --quick size) over `outputs`.
std::shared_ptr<const many_input> table_input(const workload_options& options, std::size_t outputs,
                                              key_pattern pattern, std::uint64_t quick_bytes) {
  if (options.list_only) return make_many_input(outputs, pattern, 0);  // no input for --list
  const std::uint64_t bytes = options.quick ? quick_bytes : std::uint64_t{1} << 30;
  return make_many_input(outputs, pattern, records_for(bytes));
}

// What every W17 table has: many outputs, checked by the table, each run
// in a child process, and with --quick `quick_runs` rounds.
workload many_workload(const std::shared_ptr<const many_input>& input, int quick_runs) {
  workload w;
  w.bytes = input->bytes;
  w.outputs = input->outputs;
  w.in_child = true;
  w.quick_runs = quick_runs;
  w.check_outputs = [input](const std::string& directory, output_format format) {
    return check_every_output(*input, directory, format);
  };
  return w;
}

// --quick's sizes and rounds, which keep W17 to about 30 s on the project's
// two-core machine with a few other programs running (docs/benchmarks.md
// has the figures): 3 rounds of the 1,000 plain outputs; 1 of 10,000, a
// run of which creates 10,000 files (1 to 5 s there, most of W17's time);
// 2 of the gzip outputs, whose runs cost about 3 ms a file (a codec state
// made and freed per file).
constexpr std::uint64_t quick_plain_bytes = std::uint64_t{8} << 20;
constexpr std::uint64_t quick_gzip_bytes = std::uint64_t{4} << 20;
constexpr int quick_rounds_1k = 3;
constexpr int quick_rounds_10k = 1;
constexpr int quick_rounds_gzip = 2;

// A plain table: the skewed ones' ratio column is fwrite's (their bars are
// against it), the even ones' fwrite_unlocked's.
workload plain_workload(const workload_options& options, std::size_t outputs, key_pattern pattern,
                        std::initializer_list<const char*> quick) {
  auto input = table_input(options, outputs, pattern, quick_plain_bytes);
  workload w = many_workload(input, outputs > 1000 ? quick_rounds_10k : quick_rounds_1k);
  w.contenders = plain_contenders(options, input, quick, w.absent);
  const bool skewed = pattern == key_pattern::skewed;
  w.reference = skewed ? "fwrite" : "fwrite_unlocked";
  w.baseline = skewed ? "fwrite_unlocked" : "fwrite";
  return w;
}

}  // namespace

workload make_many_1k(const workload_options& options) {
  return plain_workload(options, 1000, key_pattern::skewed,
                        {"fwrite", "fwrite_unlocked", "fastout_c"});
}

// With --quick, one run of each contender creates 10,000 files: only the
// two of the table's main bar.
workload make_many_10k(const workload_options& options) {
  return plain_workload(options, 10000, key_pattern::skewed, {"fwrite", "fastout_c"});
}

workload make_many_1k_even(const workload_options& options) {
  return plain_workload(options, 1000, key_pattern::even, {"fwrite_unlocked", "fastout_c"});
}

workload make_many_10k_even(const workload_options& options) {
  workload w = plain_workload(options, 10000, key_pattern::even, {});
  if (options.quick)
    w.left_out =
        "not with --quick, to keep W17 within about 30 s on a two-core machine: each run "
        "creates 10,000 files (W17_10k has them), and the even pattern is W17_1k_even's";
  return w;
}

// gzip at level 6 for all (compressed_sinks.h's gzip_level): zlib's
// gzwrite() per file, htslib's BGZF files sharing one pool of threads,
// and fastout's gzip writer with its default worker per writer and with
// none (compressing on the caller's thread).
workload make_many_1k_gzip(const workload_options& options) {
  auto input = table_input(options, 1000, key_pattern::skewed, quick_gzip_bytes);
  workload w = many_workload(input, quick_rounds_gzip);
  std::vector<contender> list;
  std::vector<absent_contender> absent;
  auto absent_for = [&absent](const char* name, std::initializer_list<dependency> needs) {
    std::string why = missing_dependency(needs);
    if (!why.empty()) absent.push_back(absent_contender{name, why});
    return why.empty();
  };
#if FASTOUT_BENCH_HAVE_ZLIB
  add_many<gzfile_sink>(list, "gzwrite", input, {}, output_format::gzip,
                        [](gzFile f, const char* data, std::size_t size) {
                          gzwrite(f, data, static_cast<unsigned>(size));
                        });
#else
  absent_for("gzwrite", {dependency::zlib});
#endif
#if FASTOUT_BENCH_HAVE_HTSLIB && FASTOUT_BENCH_HAVE_ZLIB
  if (options.quick) {
    // htslib 1.16's bgzf_close() of a file on a pool waits in 10 ms sleeps
    // (usleep in mt_flush_queue()) for its last block: 1,000 files take
    // more than 10 s to close, whatever their size.
    absent.push_back(absent_contender{
        "htslib_bgzf_pool",
        "left out with --quick: closing 1,000 files on a shared pool takes htslib more than "
        "10 s (bgzf_close() waits for each file's last block in 10 ms sleeps)"});
  } else {
    // One pool for every file, as hts_set_thread_pool() shares one between
    // a program's files, with as many threads as fastout's shared pool
    // is to have (many_outputs.h).
    contender c;
    c.name = "htslib_bgzf_pool";
    c.output = output_format::bgzf;
    c.run = [input](const char* directory) {
      hts_tpool* pool = hts_tpool_init(static_cast<int>(many_outputs_pool_threads()));
      if (pool == nullptr)
        throw_failure("start htslib's thread pool (hts_tpool_init) for", directory);
      // Destroyed after every file is closed (write_outputs() closes them,
      // or its sinks' destructors do when it throws).
      std::unique_ptr<hts_tpool, void (*)(hts_tpool*)> destroy(pool, hts_tpool_destroy);
      sink_options shared;
      shared.htslib_pool = pool;
      write_outputs<htslib_bgzf_sink>(directory, *input, shared, true,
                                      [](const htslib_bgzf_sink::writer& out, const char* data,
                                         std::size_t size) { out.write(data, size); });
    };
    list.push_back(std::move(c));
  }
#else
  absent_for("htslib_bgzf_pool", {dependency::htslib, dependency::zlib});
#endif
  for (unsigned workers : {fastout::default_compression_workers, 0u}) {
    const std::string name =
        workers == fastout::default_compression_workers ? "fastout_gzip" : "fastout_gzip_w0";
    if (!fastout::compression_available(fastout::compression_format::gzip)) {
      absent.push_back(absent_contender{name, "this fastout was built without libdeflate"});
      continue;
    }
    if (options.quick && workers == 0) {
      absent.push_back(absent_contender{name, quick_leaves_out});
      continue;
    }
    sink_options gzip;
    gzip.fastout_compression = fastout::gzip{gzip_level};
    gzip.fastout_compression.workers = workers;
    add_many<fastout_sink>(
        list, name, input, gzip, output_format::bgzf,
        [](fastout::file& out, const char* data, std::size_t size) { out.write(data, size); });
  }
  (void)absent_for;
  w.contenders = std::move(list);
  w.absent = std::move(absent);
  w.reference = "gzwrite";
  w.baseline = "htslib_bgzf_pool";
  return w;
}

// W17_10k's contenders with the descriptor soft limit at 256 in each child,
// and with `hard` the hard limit too: a writer that opens its outputs until
// open() fails with EMFILE fails here, and may (may_fail). fastout raises
// the soft limit to the hard one on its first EMFILE, and beyond the hard
// one releases idle outputs' descriptors.
workload many_under_descriptor_limit(const workload_options& options, bool hard) {
  auto input = table_input(options, 10000, key_pattern::skewed, quick_plain_bytes);
  workload w = many_workload(input, quick_rounds_10k);
  // Every contender, also with --quick: the others fail within their first
  // 256 opens.
  w.contenders = plain_contenders(workload_options{}, input, {}, w.absent);
  for (auto& c : w.contenders) c.may_fail = true;
  w.child_setup = [hard] {
    struct rlimit limit;
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
      throw std::system_error(errno, std::system_category(), "cannot read RLIMIT_NOFILE");
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > many_outputs_descriptor_limit)
      limit.rlim_cur = many_outputs_descriptor_limit;
    if (hard) limit.rlim_max = limit.rlim_cur;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0)
      throw std::system_error(
          errno, std::system_category(),
          "cannot lower RLIMIT_NOFILE to " + std::to_string(many_outputs_descriptor_limit));
  };
  w.reference = "fwrite";
  w.baseline = "fwrite_unlocked";
  return w;
}

workload make_many_10k_fd(const workload_options& options) {
  return many_under_descriptor_limit(options, false);
}

workload make_many_10k_fd_hard(const workload_options& options) {
  return many_under_descriptor_limit(options, true);
}

}  // namespace fastout_bench
