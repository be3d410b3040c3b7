// SPDX-License-Identifier: MIT
// After open, a writer never touches the heap: put(), write() (small, large
// and larger than the buffer), the cursor, flush(), line-buffered mode and
// every print path (runtime and compiled formats, println, vprint, <<, a
// piece larger than the free space or than the whole buffer) make no
// allocation -- but one: a writer whose buffer is smaller than
// fastout::streaming_chunk_size allocates its streaming area, once, the
// first time a piece outgrows the buffer. The C API's calls, fastout_printf
// included, keep the same promise. Opening takes the library's buffer
// reserve where it is free (src/memory/buffer_memory_internal.h), and the
// heap otherwise: the tests that count a buffer's heap traffic hold the
// reserve first. Global operator new/delete are replaced by counting
// versions built on malloc/free (which ASan still watches), which can also
// be told to refuse large requests, to make a buffer allocation fail.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/iostream.h>
#include <fastout/print.h>
#include <fastout/standard_streams.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "doors/printf_internal.h"
#include "memory/buffer_memory_internal.h"
#include "test_util.h"

namespace {

// Plain counters: the tests are single-threaded and only read them between
// calls.
std::size_t allocations = 0;
std::size_t deallocations = 0;
// Allocations of at least 4 KiB, stdio's buffer and fastout's smallest:
// buffers, as opposed to a route's or a name's few bytes.
constexpr std::size_t buffer_sized = 4096;
std::size_t buffer_allocations = 0;
std::size_t largest_allocation = 0;
// Requests of at least this many bytes fail, as they would without memory.
std::size_t refuse_from = SIZE_MAX;

void* counted_allocate(std::size_t size) {
  if (size >= refuse_from) return nullptr;
  ++allocations;
  if (size >= buffer_sized) ++buffer_allocations;
  largest_allocation = std::max(largest_allocation, size);
  return std::malloc(size == 0 ? 1 : size);
}

void* counted_allocate_aligned(std::size_t size, std::align_val_t alignment) {
  ++allocations;
  std::size_t align = static_cast<std::size_t>(alignment);
  std::size_t rounded = (size + align - 1) / align * align;
#if defined(_WIN32)
  // The Windows C runtime has no aligned_alloc(): _aligned_malloc(), freed
  // with _aligned_free().
  return ::_aligned_malloc(rounded == 0 ? align : rounded, align);
#else
  return std::aligned_alloc(align, rounded == 0 ? align : rounded);
#endif
}

void counted_free(void* p) {
  if (p == nullptr) return;
  ++deallocations;
  std::free(p);
}

void counted_free_aligned(void* p) {
#if defined(_WIN32)
  if (p == nullptr) return;
  ++deallocations;
  ::_aligned_free(p);
#else
  counted_free(p);
#endif
}

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = counted_allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = counted_allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_allocate(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = counted_allocate_aligned(size, alignment)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  if (void* p = counted_allocate_aligned(size, alignment)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_allocate_aligned(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_allocate_aligned(size, alignment);
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free_aligned(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free_aligned(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free_aligned(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free_aligned(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free_aligned(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free_aligned(p);
}

namespace {

using fastout::buffering;
using fastout::file;
using fastout::file_options;

using fastout_test::with_buffer;

// Heap traffic over a stretch of code.
struct heap_counts {
  std::size_t allocations;
  std::size_t deallocations;
};
heap_counts snapshot() { return {allocations, deallocations}; }

// Makes a call without the compiler being able to elide its allocation.
void* volatile sink;

TEST(allocations, the_counter_sees_allocations) {
  heap_counts before = snapshot();
  sink = ::operator new(16);
  ::operator delete(sink);
  std::string s(1000, 'x');  // beyond any small-string buffer
  sink = s.data();
  EXPECT_GE(allocations - before.allocations, 2u);
  EXPECT_GE(deallocations - before.deallocations, 1u);
}

// Whether a writer's buffer is the library's reserve: where its hot path
// points at open, before anything is written.
bool buffer_is_reserve(file& f) {
  return fastout::detail::is_buffer_reserve(
      reinterpret_cast<const fastout_buffer_state*>(fastout::c_handle(f))->pos);
}

// A writer holding the library's buffer reserve, so that the writers a test
// opens beside it take their buffers from the heap, whose traffic it counts.
file hold_the_reserve(fastout_test::temp_dir& dir) {
  file holder(dir.file("holds the reserve"), with_buffer(1));
  EXPECT_TRUE(buffer_is_reserve(holder)) << "the reserve is held by a writer left open";
  return holder;
}

// The first writer takes the reserve (no buffer from the heap, so no mmap()
// of 256 KiB and no munmap() at close), others beside it the heap, and a
// writer that closes gives it back to the next.
TEST(allocations, a_lone_writer_takes_the_reserve_and_gives_it_back) {
  fastout_test::temp_dir dir;
  const std::size_t before = buffer_allocations;
  {
    file first(dir.file("first"), with_buffer(fastout::default_buffer_size));
    EXPECT_TRUE(buffer_is_reserve(first));
    EXPECT_EQ(buffer_allocations - before, 0u);
    EXPECT_EQ(first.buffer_capacity(), fastout::default_buffer_size);
    file second(dir.file("second"), with_buffer(4096));
    EXPECT_FALSE(buffer_is_reserve(second));
    EXPECT_EQ(buffer_allocations - before, 1u);
    // Larger than the reserve: the heap, whoever holds the reserve.
    file larger(dir.file("larger"),
                with_buffer(fastout::detail::buffer_reserve_size() + 1, buffering::full));
    EXPECT_FALSE(buffer_is_reserve(larger));
    EXPECT_EQ(buffer_allocations - before, 2u);
    // Each buffer holds its own text.
    for (file* f : {&first, &second, &larger}) f->write(f->path());
    for (file* f : {&first, &second, &larger}) f->close();
    for (const char* name : {"first", "second", "larger"})
      EXPECT_EQ(fastout_test::read_file(dir.file(name)), dir.file(name));
  }
  const std::size_t closed = buffer_allocations;  // (read_file()'s stream has a buffer too)
  file next(dir.file("next"), with_buffer(64));
  EXPECT_TRUE(buffer_is_reserve(next));
  EXPECT_EQ(buffer_allocations - closed, 0u);
}

// Options given to a standard writer before its first use make it once,
// with the chosen buffer. (Before, the default writer was made first, with
// a 256 KiB buffer -- an mmap() and an munmap() -- and then replaced.)
// Nothing before this test in this program makes either standard writer.
TEST(allocations, standard_writers_given_options_before_use_allocate_one_buffer) {
  fastout_test::temp_dir dir;
  file holder = hold_the_reserve(dir);  // the buffers are the heap's, and counted
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = 8192;
  std::size_t buffers = buffer_allocations;
  largest_allocation = 0;
  ASSERT_EQ(fastout_set_stdout_options(&options), 0);
  EXPECT_EQ(buffer_allocations - buffers, 1u);
  EXPECT_EQ(largest_allocation, 8192u);
  EXPECT_EQ(fastout::standard_output().buffer_capacity(), 8192u);
  // Too late now: options were given.
  EXPECT_EQ(fastout_set_stdout_options(&options), -EALREADY);

  buffers = buffer_allocations;
  largest_allocation = 0;
  fastout::set_standard_error_options(with_buffer(12288));
  EXPECT_EQ(buffer_allocations - buffers, 1u);
  EXPECT_EQ(largest_allocation, 12288u);
  EXPECT_EQ(fastout::standard_error().buffer_capacity(), 12288u);
  fastout::set_standard_error_options(with_buffer(0));  // as it was, for the tests after this
}

TEST(allocations, opening_allocates_the_buffer) {
  fastout_test::temp_dir dir;
  file holder = hold_the_reserve(dir);
  std::string path = dir.file("open");
  heap_counts before = snapshot();
  file f(path, with_buffer(4096, buffering::full));
  EXPECT_GE(allocations - before.allocations, 1u);  // the buffer, through new(nothrow)[]
  before = snapshot();
  f.close();
  EXPECT_EQ(allocations - before.allocations, 0u);
  EXPECT_EQ(deallocations - before.deallocations, 1u);  // the buffer
}

// How many times a loop of the workouts below runs: `most` for a buffer it
// fills several times over, fewer where a few hundred pieces already pass
// through every path of a small buffer. With a buffer of 0 to 64 bytes
// every piece is a write() of its own, and under Wine each costs a
// round trip to the wineserver: the full counts took 130 and 200 s there,
// near CTest's 300 s timeout on a busy machine, for nothing more tested.
int rounds_for(std::size_t buffer, int most) {
  const std::size_t enough = std::max<std::size_t>(200, 3 * buffer);
  return enough < static_cast<std::size_t>(most) ? static_cast<int>(enough) : most;
}

// Everything a program does with an open writer, by buffer size and mode.
void workout(file& f, std::size_t buffer) {
  static const char large[1 << 20] = {'L'};  // more than 3 * the largest buffer
  std::string_view line = "a line of text\n";
  for (int i = 0; i < rounds_for(buffer, 10000); ++i) f.put(static_cast<char>('a' + i % 26));
  for (int i = 0; i < rounds_for(buffer, 2000); ++i) {
    f.write(line);
    f.write("abc", 3);
    f.put('\n');
  }
  f.write(large, buffer);                       // exactly the buffer
  f.write(large, buffer + 1);                   // larger than the buffer
  f.write(large, sizeof large);                 // much larger: one writev
  f.write(large, buffer > 0 ? buffer - 1 : 0);  // just smaller
  f.write(std::string_view());
  f.flush();
  f.flush();  // nothing to flush
  {
    fastout::cursor c = f.make_cursor();
    for (int i = 0; i < rounds_for(buffer, 20000); ++i)
      c.put(static_cast<char>(i % 2 == 0 ? 'x' : '\n'));
    c.write(line);
    c.write(large, 3 * buffer + 7);
    c.flush();
    c.put('z');
    c.commit();
  }
  fastout::file_stats stats = f.stats();
  (void)stats;
  (void)f.bytes_pending();
  (void)f.error();
}

TEST(allocations, none_per_call_after_open) {
  fastout_test::temp_dir dir;
  file holder = hold_the_reserve(dir);  // every buffer below is the heap's, and counted
  for (buffering mode : {buffering::full, buffering::line}) {
    for (std::size_t buffer : std::initializer_list<std::size_t>{0, 1, 2, 7, 64, 4096, 65536,
                                                                 fastout::default_buffer_size}) {
      SCOPED_TRACE("buffer " + std::to_string(buffer) +
                   (mode == buffering::line ? ", line-buffered" : ", fully buffered"));
      std::string path = dir.file("out");
      file f(path, with_buffer(buffer, mode));
      heap_counts before = snapshot();
      workout(f, buffer);
      f.close();
      heap_counts after = snapshot();
      EXPECT_EQ(after.allocations - before.allocations, 0u);
      // close() frees the buffer, and nothing else happens to the heap.
      EXPECT_EQ(after.deallocations - before.deallocations, buffer > 0 ? 1u : 0u);
    }
  }
}

TEST(allocations, none_on_dev_null_or_through_moves_and_destruction) {
  heap_counts before = snapshot();
  {
    file f("/dev/null", with_buffer(1024, buffering::automatic));
    before = snapshot();
    workout(f, 1024);
    file g(std::move(f));
    g.put('x');
    file h;
    h = std::move(g);
    h.write("moved");
  }  // the destructor flushes and frees
  heap_counts after = snapshot();
  EXPECT_EQ(after.allocations - before.allocations, 0u);
}

// The iostream adapter has no buffer of its own: after open, `<<` of every
// kind, std::endl and flushes, under both flush policies, allocate nothing.
TEST(allocations, none_per_insertion_through_the_stream_adapter) {
  fastout_test::temp_dir dir;
  for (fastout::flush_policy policy :
       {fastout::flush_policy::standard, fastout::flush_policy::on_close}) {
    for (std::size_t buffer :
         std::initializer_list<std::size_t>{0, 7, 4096, fastout::default_buffer_size}) {
      SCOPED_TRACE("buffer " + std::to_string(buffer));
      fastout::ofstream out(dir.file("stream"), policy, fastout::buffer_size = buffer);
      const std::string word = "word";
      static const char large[20000] = {'L'};
      heap_counts before = snapshot();
      for (int i = 0; i < 2000; ++i) {
        out << i << ',' << i * 0.25 << ',' << word << ", a C string" << std::endl;
        out.put('p').write(large, i % 7 == 0 ? sizeof large : 10);
        out << std::flush;
      }
      heap_counts after = snapshot();
      EXPECT_TRUE(out.good());
      EXPECT_EQ(after.allocations - before.allocations, 0u);
    }
  }
}

// Every print path, with argument types whose formatting by fmt does not
// allocate by itself.
void print_workout(file& f, std::size_t buffer) {
  const std::string word = "word";
  const char* c_string = "c string";
  // 3000 rounds are about 330 KB: more than the default buffer.
  for (int i = 0; i < rounds_for(buffer, 3000); ++i) {
    f.print("{}\n", i);  // runtime, cached after the first
    f.print("{:>8}|{:.3f}|{}|{:#x}\n", word, i * 0.25, c_string, i);  // specs
    f.print(fmt::runtime("{1}-{0}\n"), i, word);                      // a runtime string
    f.println("{} {}", i, true);
    f.print(FMT_COMPILE("{}|{}\n"), i, word);     // compiled, bounded
    f.print(FMT_COMPILE("{:>6.2f}\n"), i * 0.5);  // compiled with a spec
    f.println(FMT_COMPILE("{}"), static_cast<std::int64_t>(i) * 1000003);
    f << i << ' ' << i * 1.5 << ' ' << fastout::hex(i) << ' ' << word << ' ' << c_string << ' '
      << std::string_view("view") << ' ' << 'c' << ' ' << false << '\n';
  }
  fastout_test::vprint_with(f, "{} {}\n", 1, word);
  f.print("{:>300}\n", word);   // larger than the free space of small buffers
  f.print("{:>5000}\n", word);  // larger than most whole buffers: streams
  f.print(FMT_COMPILE("{:>5000}\n"), word);
  f.println("{:>9000}", 7);
  f.flush();
}

TEST(allocations, none_on_any_print_path) {
  fastout_test::temp_dir dir;
  for (buffering mode : {buffering::full, buffering::line}) {
    for (std::size_t buffer :
         std::initializer_list<std::size_t>{0, 1, 7, 64, 4096, fastout::default_buffer_size}) {
      SCOPED_TRACE("buffer " + std::to_string(buffer) +
                   (mode == buffering::line ? ", line-buffered" : ", fully buffered"));
      std::string path = dir.file("print");
      file f(path, with_buffer(buffer, mode));
      heap_counts before = snapshot();
      print_workout(f, buffer);
      heap_counts after = snapshot();
      const std::size_t streaming_area = buffer < fastout::streaming_chunk_size ? 1 : 0;
      EXPECT_EQ(after.allocations - before.allocations, streaming_area);
      before = snapshot();
      print_workout(f, buffer);
      after = snapshot();
      EXPECT_EQ(after.allocations - before.allocations, 0u) << "the second time";
      // A format error after a piece larger than the buffer: only the
      // format_error's own message may be on the heap.
      before = snapshot();
      try {
        f.print(fmt::runtime("{:>5000}{:d}"), "x", std::string_view("text"));
        ADD_FAILURE() << "no format_error";
      } catch (const fmt::format_error&) {
      }
      after = snapshot();
      EXPECT_LE(after.allocations - before.allocations, 1u);
      f.close();
    }
  }
}

// A buffer that cannot be allocated is an error naming the path and the
// size, raised before the file is opened: an existing file keeps its
// contents, a missing one is not created, and no descriptor is leaked.
class out_of_memory : public ::testing::Test {
 protected:
  static constexpr std::size_t huge = std::size_t{1} << 40;
  void SetUp() override { refuse_from = huge; }
  void TearDown() override { refuse_from = SIZE_MAX; }

  static std::size_t open_descriptors() {
    return static_cast<std::size_t>(fastout_test::open_descriptors());
  }
  static void expect_out_of_memory(const std::system_error& e, const std::string& name) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(ENOMEM));
    EXPECT_TRUE(fastout_test::contains(e.what(), name)) << e.what();
    EXPECT_TRUE(fastout_test::contains(e.what(), std::to_string(huge) + "-byte buffer"))
        << e.what();
  }
};

TEST_F(out_of_memory, opening_a_path_touches_nothing) {
  fastout_test::temp_dir dir;
  std::string existing = dir.file("existing");
  std::string missing = dir.file("missing");
  fastout_test::write_file(existing, "old contents");
  std::size_t descriptors = open_descriptors();
  for (const std::string& path : {existing, missing}) {
    try {
      file f = fastout::output_file(path, fastout::buffer_size = huge);
      ADD_FAILURE() << "opened " << path << " with a refused buffer";
    } catch (const std::system_error& e) {
      expect_out_of_memory(e, path);
    }
  }
  EXPECT_EQ(fastout_test::read_file(existing), "old contents");
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_EQ(open_descriptors(), descriptors);
  refuse_from = SIZE_MAX;
  file works = fastout::output_file(existing, fastout::buffer_size = 4096);
  works.write("new");
  works.close();
  EXPECT_EQ(fastout_test::read_file(existing), "new");
}

TEST_F(out_of_memory, adopt_closes_the_descriptor_and_borrow_does_not) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  file_options options;
  options.buffer_size = huge;
  try {
    file f = file::borrow(fds[1], options, "borrowed pipe");
    ADD_FAILURE() << "borrowed with a refused buffer";
  } catch (const std::system_error& e) {
    expect_out_of_memory(e, "borrowed pipe");
  }
  EXPECT_NE(fcntl(fds[1], F_GETFD), -1) << "borrow() closed a descriptor it does not own";
  try {
    file f = file::adopt(fds[1], options, "adopted pipe");
    ADD_FAILURE() << "adopted with a refused buffer";
  } catch (const std::system_error& e) {
    expect_out_of_memory(e, "adopted pipe");
  }
  errno = 0;
  EXPECT_EQ(fcntl(fds[1], F_GETFD), -1) << "adopt() leaked the descriptor it owns";
  EXPECT_EQ(errno, EBADF);
  close(fds[0]);
}

// Every C output call, and fastout_printf through each of its paths: the
// fast executor, the general one (%a, %Lf, %m, %ls, and ', whose locale
// here is "C"), glibc's second parser (positional arguments), %n, and texts
// larger than the free space.
void c_workout(fastout_file* f) {
  static const char large[1 << 17] = {'L'};
  // Variables: -Wpedantic's format check knows only ISO C.
  const char* positional = "%2$s %1$d\n";
  const char* glibc_only = "%a %Lf %'d %m %ls %C\n";
  int count = 0;
  for (int i = 0; i < 5000; ++i) {
    fastout_putc('a' + i % 26, f);
    fastout_write("abc", 1, 3, f);
    fastout_fputs("a line\n", f);
    fastout_fprintf(f, "%d %lld %u %x %o %zu|%5.2f %e %g %.17g|%s %-8s|%c %p %n%%\n", i,
                    -1234567890123ll * i, 42u, 255u, 8u, sizeof count, 3.25, 1e-7, 0.1, 1.0 / 3,
                    "str", "pad", 'c', static_cast<void*>(&count), &count);
  }
  fastout_fprintf(f, glibc_only, 1.5, 2.5L, 1234567, L"wide", static_cast<wint_t>('w'));
  fastout_fprintf(f, positional, 1, "two");
  fastout_fprintf(f, "%s%s", large + 1, "");              // "" after a NUL: short
  fastout_fprintf(f, "%70000d|%.*s\n", 5, 2000, "text");  // larger than 64 KiB
  fastout_write(large, 1, sizeof large, f);
  fastout_flush(f);
}

TEST(allocations, none_in_c_api_calls) {
  fastout_test::temp_dir dir;
  {
    // fastout_printf parses each format once per thread, and keeps the
    // plan (the thread's cache, docs/c-api.md): that happens here, before
    // anything is counted.
    fastout_file* warm = fastout_open(dir.file("warm").c_str(), nullptr);
    ASSERT_NE(warm, nullptr);
    c_workout(warm);
    EXPECT_EQ(fastout_close(warm), 0);
  }
  for (std::size_t buffer :
       std::initializer_list<std::size_t>{0, 1, 7, 64, 4096, 65536, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(buffer));
    fastout_options options;
    fastout_options_init(&options);
    options.buffer_size = buffer;
    fastout_file* f = fastout_open(dir.file("c").c_str(), &options);
    ASSERT_NE(f, nullptr);
    heap_counts before = snapshot();
    c_workout(f);
    heap_counts after = snapshot();
    // Texts larger than a buffer under 64 KiB stream through the writer's
    // streaming area, allocated once; a writer without a buffer uses the stack.
    const std::size_t streaming_area = buffer > 0 && buffer < fastout::streaming_chunk_size ? 1 : 0;
    EXPECT_EQ(after.allocations - before.allocations, streaming_area);
    before = snapshot();
    c_workout(f);
    after = snapshot();
    EXPECT_EQ(after.allocations - before.allocations, 0u) << "the second time";
    EXPECT_EQ(fastout_error(f), 0);
    EXPECT_EQ(fastout_close(f), 0);
  }
}

// Four formats whose addresses fall into one set of the thread's cache of
// plans: each is parsed once, then found at every call. A program's formats
// lie side by side in its read-only data, and sets of two ways thrashed on
// three of them (a layout that -O1 brought to c_workout() above).
TEST(allocations, none_for_four_formats_that_share_a_cache_set) {
  static char area[64 * 1024];
  std::vector<const char*> formats;
  const std::size_t set = fastout::detail::printf_engine::cache_set_of(area);
  for (std::size_t at = 0; at + 16 <= sizeof area && formats.size() < 4; at += 16) {
    if (fastout::detail::printf_engine::cache_set_of(area + at) != set) continue;
    std::snprintf(area + at, 16, "%%d|%zu\n", formats.size());
    formats.push_back(area + at);
  }
  ASSERT_EQ(formats.size(), 4u);
  fastout_test::temp_dir dir;
  fastout_file* f = fastout_open(dir.file("c").c_str(), nullptr);
  ASSERT_NE(f, nullptr);
  std::string expected;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    fastout_fprintf(f, formats[i], 1);  // parsed, and kept
    expected += "1|" + std::to_string(i) + "\n";
  }
  const heap_counts before = snapshot();
  for (int round = 0; round < 100; ++round)
    for (const char* format : formats) fastout_fprintf(f, format, round % 10);
  const heap_counts after = snapshot();
  EXPECT_EQ(after.allocations - before.allocations, 0u) << "a format was parsed again";
  for (int round = 0; round < 100; ++round)
    for (std::size_t i = 0; i < formats.size(); ++i)
      expected += std::to_string(round % 10) + "|" + std::to_string(i) + "\n";
  EXPECT_EQ(fastout_close(f), 0);
  EXPECT_EQ(fastout_test::read_file(dir.file("c")), expected);
}

// The C API: a buffer that cannot be had is ENOMEM, and nothing is created.
TEST_F(out_of_memory, c_api_open_is_enomem_and_creates_nothing) {
  fastout_test::temp_dir dir;
  std::string missing = dir.file("missing");
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = huge;
  errno = 0;
  EXPECT_EQ(fastout_open(missing.c_str(), &options), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_EQ(fastout_open_stdout(&options), nullptr);
  EXPECT_EQ(errno, ENOMEM);
}

}  // namespace
