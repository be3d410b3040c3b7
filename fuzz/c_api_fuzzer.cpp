// SPDX-License-Identifier: MIT
// Fuzz target: the C API as a sequence of operations against a model of
// the file's bytes, the counts and the error codes.
//
// A writer from fastout_fdopen() takes putc, write (small, large, and
// refused: a null pointer, a size * count that overflows), fputs, printf,
// the C cursor (with calls on the writer while it is alive, which must be
// refused with -EBUSY), flush, and finally close; the platform table's
// write, writev and close are fakes that write to a memory file but can
// fail with an errno once a byte budget is spent, write short, be
// interrupted (EINTR), and fail close. After every operation:
// - its result: success, or the error that met it -- the fake's, at the
//   call during which the fake failed and at every output call after
//   (sticky), or the call's own (-EINVAL, -EOVERFLOW, -EBUSY, a printf
//   format glibc refuses), which changes nothing; a call named after
//   stdio's (putc, fputs, fflush, fclose) fails with EOF as stdio's does,
//   its code in errno, printf with the code, write with a short count;
// - fastout_error() (the sticky error), fastout_last_error() (the last
//   failed call's) and errno after a failure;
// - fastout_get_stats(): bytes_accepted is every byte of every call that
//   was not refused (after a write error too: accepted and dropped),
//   bytes_written and write_calls what the fakes saw, and bytes_pending the
//   rest while all is well.
// After close, the file holds exactly the first bytes_written bytes of
// what was accepted.
//
// The input (fuzz_input.h reads it; past its end every byte is 0):
//
//   SETTINGS OPERATIONS
//
//   SETTINGS  7 bytes: [0] the buffer size (0 none, 1 the default, 2-129
//             that less 1, 130-255 (b - 129) * 97); [1] bit 0 line
//             buffering; [2] the fault: 0 none, else writes fail once
//             [3-4] (little-endian) bytes have been written, with an errno
//             from a table (ENOSPC, EIO, EPIPE, EFBIG, EDQUOT, ENXIO) by
//             [2] % 6; [5] 0, or the most a write call writes (short
//             writes); [6] bits 0-3: 0, or every n-th write call (n >= 2)
//             is interrupted; bits 4-6: close fails with an errno (0 none)
//   OPERATIONS  one byte each, mod 12, then its operands:
//     0 putc       the byte
//     1 write      size (1 byte, mod 4, + 1) and count (1 byte): that many
//                  bytes of the input
//     2 large      2 bytes: a length; that many bytes of a pattern
//     3 fputs      1 byte length, then the text (up to a '\0')
//     4 printf     1 byte: the format (a table: %d, %s, %.*s, %c, %x, %*d
//                  with a width up to 65535, "%" which is refused, %ls of a
//                  character the "C" locale cannot convert, ...), then its
//                  arguments
//     5 flush
//     6 cursor     1 byte n: n bytes through fastout_cursor_putc() (taken
//                  from the input), then 1 byte: a call made on the writer
//                  meanwhile (mod 4: none, putc, write, fprintf), then the end
//     7 refused    1 byte: a call that fails on its own (write of a null
//                  pointer, a size * count that overflows, fputs(NULL))
//     8 empty      fastout_write() of nothing (0 items), and fputs("")
//     9-11 putc of '\n' (line buffering's trigger)
//   The sequence ends with fastout_close().
#include <fastout/c_api.h>

#include <algorithm>
#include <cerrno>
#include <clocale>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>

#include <sys/uio.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "platform/platform_internal.h"
#include "scratch_file.h"

namespace fastout_fuzz {
namespace {

// -------------------------------------------------------------- the fakes

struct fake_plan {
  int fd = -1;                        // the scratch file's descriptor (and its dup)
  std::uint64_t budget = UINT64_MAX;  // bytes that may still reach the file
  int error = 0;                      // what writes fail with once it is spent
  std::size_t max_chunk = SIZE_MAX;   // the most one call writes
  unsigned eintr_every = 0;           // calls 1, 1+n, ... fail with EINTR
  int close_error = 0;                // close() closes, then fails with this
  // What the fakes saw.
  std::uint64_t calls = 0;
  std::uint64_t written = 0;
  std::uint64_t failures = 0;
};

fake_plan plan;

ssize_t fake_writev(int fd, const iovec* iov, int count) {
  if (fd != plan.fd) return fastout::detail::real_platform.writev(fd, iov, count);
  ++plan.calls;
  if (plan.eintr_every >= 2 && plan.calls % plan.eintr_every == 1) {
    errno = EINTR;
    return -1;
  }
  // The bytes the plan lets through, gathered for one real write.
  std::string through;
  bool more = false;
  const std::uint64_t allowed = std::min<std::uint64_t>(plan.max_chunk, plan.budget);
  for (int i = 0; i < count; ++i) {
    const auto* bytes = static_cast<const char*>(iov[i].iov_base);
    const std::size_t room = static_cast<std::size_t>(allowed - through.size());
    through.append(bytes, std::min(iov[i].iov_len, room));
    more = more || iov[i].iov_len > room;
  }
  if (through.empty() && more) {
    ++plan.failures;
    errno = plan.error;
    return -1;
  }
  const ssize_t result = fastout::detail::real_platform.write(fd, through.data(), through.size());
  if (result > 0) {
    plan.budget -= static_cast<std::uint64_t>(result);
    plan.written += static_cast<std::uint64_t>(result);
  }
  return result;
}

ssize_t fake_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return fake_writev(fd, &one, 1);
}

int fake_close(int fd) {
  const int result = fastout::detail::real_platform.close(fd);
  if (fd == plan.fd && plan.close_error != 0) {
    errno = plan.close_error;
    return -1;
  }
  return result;
}

// -------------------------------------------------------------- the model

struct model {
  std::string accepted;  // every byte the writer took, dropped ones too
  int sticky = 0;        // the write error, negative, or 0
  int last_error = 0;    // the last failed call's code
  std::string log;       // the operations so far, for the report
};

[[noreturn]] void wrong(const model& m, const std::string& what) {
  fail("the C API differs from its model: " + what + "\n  operations:" + m.log);
}

std::string code_name(int code) {
  return std::to_string(code) + (code < 0 ? std::string(" (") + std::strerror(-code) + ")" : "");
}

// A call's result against what the model expects: `own` is the code of a
// call that fails on its own (0 for none).
void expect_result(model& m, fastout_file* f, const char* call, int result, std::uint64_t failures,
                   int own = 0) {
  int expected = 0;
  if (m.sticky == 0 && plan.failures != failures)
    m.sticky = -plan.error;  // the call met the fake's failure (making room, say)
  if (own != 0)
    expected = own;
  else
    expected = m.sticky;
  const bool failed = result < 0;
  // A call that fails on its own with a write error met or sticky may
  // report either.
  const bool either = own != 0 && m.sticky != 0 && result == m.sticky;
  if (failed != (expected < 0) || (failed && result != expected && !either))
    wrong(m, std::string(call) + " returned " + code_name(result) + ", the model " +
                 code_name(expected));
  if (failed) {
    if (errno != -result)
      wrong(m, std::string(call) + " failed with " + code_name(result) + " but left errno " +
                   std::to_string(errno));
    m.last_error = result;
  }
  if (fastout_error(f) != m.sticky)
    wrong(m, "fastout_error() is " + code_name(fastout_error(f)) + ", the model " +
                 code_name(m.sticky));
  if (fastout_last_error(f) != m.last_error)
    wrong(m, "fastout_last_error() is " + code_name(fastout_last_error(f)) + ", the model " +
                 code_name(m.last_error));
}

// The result of a call named after stdio's (putc, fputs, fflush, fclose),
// as the model's code: such a call fails with EOF, never a code, and leaves
// the code in errno (and fastout_last_error(), which expect_result() checks).
int stdio_code(const model& m, const char* call, int result) {
  if (result >= 0) return result;
  if (result != EOF)
    wrong(m, std::string(call) + " returned " + code_name(result) + ", not EOF as stdio's does");
  return -errno;
}

// fastout_write() of nothing: 0, as fwrite(), and no error, even after one.
void expect_no_op(model& m, fastout_file* f, std::size_t written) {
  if (written != 0) wrong(m, "fastout_write() of nothing returned " + std::to_string(written));
  if (fastout_error(f) != m.sticky || fastout_last_error(f) != m.last_error)
    wrong(m, "fastout_write() of nothing changed the writer's errors");
}

void expect_stats(const model& m, fastout_file* f) {
  fastout_stats s;
  if (fastout_get_stats(f, &s) != 0) wrong(m, "fastout_get_stats() failed");
  if (s.bytes_accepted != m.accepted.size())
    wrong(m, "bytes_accepted is " + std::to_string(s.bytes_accepted) + ", the model " +
                 std::to_string(m.accepted.size()));
  if (s.bytes_written != plan.written)
    wrong(m, "bytes_written is " + std::to_string(s.bytes_written) + ", the fakes wrote " +
                 std::to_string(plan.written));
  if (s.write_calls != plan.calls)
    wrong(m, "write_calls is " + std::to_string(s.write_calls) + ", the fakes saw " +
                 std::to_string(plan.calls));
  if (m.sticky == 0 && s.bytes_pending != m.accepted.size() - plan.written)
    wrong(m, "bytes_pending is " + std::to_string(s.bytes_pending) + ", accepted less written " +
                 std::to_string(m.accepted.size() - plan.written));
}

// fastout_write() of `data` as items of `size` bytes, against the model.
void write_items(model& m, fastout_file* f, const std::string& data, std::size_t size,
                 std::uint64_t failures) {
  const std::size_t count = data.size() / size;
  const std::size_t written = fastout_write(data.data(), size, count, f);
  if (count == 0) return expect_no_op(m, f, written);
  m.accepted += data;
  expect_result(m, f, "fastout_write()", written == count ? 0 : -errno, failures);
}

char pattern_byte(std::size_t i) { return static_cast<char>('!' + (i * 7 + i / 91) % 90); }

// ------------------------------------------------------------ operations

void op_printf(input& in, model& m, fastout_file* f) {
  const std::uint8_t which = in.byte();
  const std::uint64_t failures = plan.failures;
  char expected[70000];
  int result = 0;
  int own = 0;
  const int a = static_cast<int>(static_cast<std::int8_t>(in.byte())) * 1000 + in.byte();
  const std::string_view text = in.take(in.byte() % 40);
  const std::string s(text.substr(0, text.find('\0')));
  int n = 0;
  switch (which % 9) {
    case 0:
      n = std::snprintf(expected, sizeof expected, "%d", a);
      result = fastout_fprintf(f, "%d", a);
      m.log += " printf(\"%d\")";
      break;
    case 1:
      n = std::snprintf(expected, sizeof expected, "%s|", s.c_str());
      result = fastout_fprintf(f, "%s|", s.c_str());
      m.log += " printf(\"%s|\")";
      break;
    case 2:
      n = std::snprintf(expected, sizeof expected, "%.*s", a % 50, s.c_str());
      result = fastout_fprintf(f, "%.*s", a % 50, s.c_str());
      m.log += " printf(\"%.*s\")";
      break;
    case 3:
      n = std::snprintf(expected, sizeof expected, "%5c%c", a & 0x7f, 'z');
      result = fastout_fprintf(f, "%5c%c", a & 0x7f, 'z');
      m.log += " printf(\"%5c%c\")";
      break;
    case 4:
      n = std::snprintf(expected, sizeof expected, "%x %o\n", static_cast<unsigned>(a),
                        static_cast<unsigned>(a));
      result = fastout_fprintf(f, "%x %o\n", static_cast<unsigned>(a), static_cast<unsigned>(a));
      m.log += " printf(\"%x %o\\n\")";
      break;
    case 5: {
      const int width = (a & 0xffff) % 65536;
      n = std::snprintf(expected, sizeof expected, "%*d", width, 7);
      result = fastout_fprintf(f, "%*d", width, 7);
      m.log += " printf(\"%*d\", " + std::to_string(width) + ")";
      break;
    }
    case 6:
      n = std::snprintf(expected, sizeof expected, "%lld%%", static_cast<long long>(a) * 1048576);
      result = fastout_fprintf(f, "%lld%%", static_cast<long long>(a) * 1048576);
      m.log += " printf(\"%lld%%\")";
      break;
    case 7: {
      // A format glibc refuses: "%" at the end.
      const char* refused = "abc%";
      result = fastout_fprintf(f, refused, 0);
      own = -EINVAL;
      m.log += " printf(\"abc%\")";
      break;
    }
    default: {
#if defined(__GLIBC__)
      // A character the "C" locale cannot convert: EILSEQ.
      const wchar_t wide[] = {L'o', L'k', static_cast<wchar_t>(0xe9), L'\0'};
      result = fastout_fprintf(f, "%ls", wide);
      own = -EILSEQ;
      m.log += " printf(\"%ls\", L\"ok\\xe9\")";
#else
      n = std::snprintf(expected, sizeof expected, "%d", a);
      result = fastout_fprintf(f, "%d", a);
      m.log += " printf(\"%d\")";
#endif
      break;
    }
  }
  if (own == 0) {
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof expected) wrong(m, "snprintf failed");
    m.accepted.append(expected, static_cast<std::size_t>(n));
    expect_result(m, f, "fastout_fprintf()", result, failures);
    if (result >= 0 && result != n)
      wrong(m, "fastout_fprintf() returned " + std::to_string(result) + ", snprintf " +
                   std::to_string(n));
  } else {
    expect_result(m, f, "fastout_fprintf()", result, failures, own);
  }
}

void op_cursor(input& in, model& m, fastout_file* f) {
  const std::size_t count = in.byte();
  fastout_cursor cursor = fastout_cursor_begin(f);
  m.log += " cursor(" + std::to_string(count) + ")";
  int stopped = m.sticky;  // a failed writer lends nothing
  for (std::size_t i = 0; i < count; ++i) {
    const char c = in.empty() ? pattern_byte(i) : static_cast<char>(in.byte());
    const std::uint64_t failures = plan.failures;
    const int result = fastout_cursor_putc(static_cast<unsigned char>(c), &cursor);
    m.accepted += c;
    if (stopped == 0 && plan.failures != failures) stopped = -plan.error;
    const int expected = stopped != 0 ? stopped : static_cast<unsigned char>(c);
    if (result != expected)
      wrong(m, "fastout_cursor_putc() returned " + code_name(result) + ", the model " +
                   code_name(expected));
  }
  if (stopped != 0 && m.sticky == 0) m.sticky = stopped;
  if (stopped == 0) {
    // A call on the writer while the cursor holds it: refused, nothing taken.
    const std::uint8_t meanwhile = in.byte() % 4;
    int result = 0;
    if (meanwhile == 1) {
      result = stdio_code(m, "fastout_putc()", fastout_putc('x', f));
      m.log += " putc-during-cursor";
    } else if (meanwhile == 2) {
      result = fastout_write("abc", 1, 3, f) == 3 ? 0 : -errno;
      m.log += " write-during-cursor";
    } else if (meanwhile == 3) {
      result = fastout_fprintf(f, "%d", 5);
      m.log += " printf-during-cursor";
    }
    if (meanwhile != 0) {
      if (result != -EBUSY)
        wrong(m, "a call during a cursor returned " + code_name(result) + ", not -EBUSY");
      m.last_error = -EBUSY;
    }
  }
  const int ended = fastout_cursor_end(cursor);
  if (ended != stopped)
    wrong(m, "fastout_cursor_end() returned " + code_name(ended) + ", the model " +
                 code_name(stopped));
  if (stopped != 0) m.last_error = stopped;
  if (fastout_error(f) != m.sticky)
    wrong(m, "after the cursor, fastout_error() is " + code_name(fastout_error(f)) +
                 ", the model " + code_name(m.sticky));
}

void op_refused(input& in, model& m, fastout_file* f) {
  const std::uint64_t failures = plan.failures;
  switch (in.byte() % 3) {
    case 0: {
      const std::size_t written = fastout_write(nullptr, 1, 5, f);
      m.log += " write(NULL)";
      expect_result(m, f, "fastout_write(NULL)", written == 0 ? -errno : 0, failures, -EINVAL);
      break;
    }
    case 1: {
      const std::size_t written = fastout_write("ab", SIZE_MAX / 2, 3, f);
      m.log += " write(overflowing size)";
      expect_result(m, f, "fastout_write(overflowing)", written == 0 ? -errno : 0, failures,
                    -EOVERFLOW);
      break;
    }
    default: {
      const int result = stdio_code(m, "fastout_fputs(NULL)", fastout_fputs(nullptr, f));
      m.log += " fputs(NULL)";
      expect_result(m, f, "fastout_fputs(NULL)", result, failures, -EINVAL);
      break;
    }
  }
}

void run(input& in, const scratch_file& file) {
  static const int errors[] = {ENOSPC, EIO, EPIPE, EFBIG, EDQUOT, ENXIO};
  static const int close_errors[] = {0, EIO, ENOSPC, EDQUOT, EINTR, EBADF, EIO, ENOSPC};
  const std::uint8_t buffer = in.byte();
  const std::size_t buffer_size = buffer == 0     ? 0
                                  : buffer == 1   ? FASTOUT_DEFAULT_BUFFER_SIZE
                                  : buffer <= 129 ? buffer - 1u
                                                  : (buffer - 129u) * 97u;
  const bool line = (in.byte() & 1) != 0;
  const std::uint8_t fault = in.byte();
  const auto budget = static_cast<std::uint64_t>(in.bits(2));
  const std::uint8_t chunk = in.byte();
  const std::uint8_t interruptions = in.byte();

  plan = fake_plan();
  plan.fd = dup(file.fd());
  if (plan.fd < 0) fail("dup() failed");
  if (fault != 0) {
    plan.budget = budget;
    plan.error = errors[fault % 6];
  }
  plan.max_chunk = chunk == 0 ? SIZE_MAX : chunk;
  plan.eintr_every = interruptions & 15u;
  plan.close_error = close_errors[(interruptions >> 4) & 7u];

  model m;
  m.log = " open(buffer size " + std::to_string(buffer_size) + (line ? ", line-buffered" : "") +
          (fault != 0 ? ", writes fail with " + code_name(-plan.error) + " after " +
                            std::to_string(budget) + " bytes"
                      : "") +
          (chunk != 0 ? ", at most " + std::to_string(chunk) + " bytes a write" : "") +
          (plan.eintr_every >= 2
               ? ", every " + std::to_string(plan.eintr_every) + "th write interrupted"
               : "") +
          (plan.close_error != 0 ? ", close fails with " + code_name(-plan.close_error) : "") + ")";
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = buffer_size;
  options.buffering = line ? FASTOUT_BUFFERING_LINE : FASTOUT_BUFFERING_FULL;
  fastout_file* f = fastout_fdopen(plan.fd, FASTOUT_ADOPT, &options);
  if (f == nullptr) fail("fastout_fdopen() failed");

  for (int ops = 0; !in.empty() && ops < 2000; ++ops) {
    const std::uint8_t op = in.byte() % 12;
    const std::uint64_t failures = plan.failures;
    switch (op) {
      case 0:
      case 9:
      case 10:
      case 11: {
        const char c = op == 0 ? static_cast<char>(in.byte()) : '\n';
        m.log += op == 0 ? " putc" : " putc('\\n')";
        const int result =
            stdio_code(m, "fastout_putc()", fastout_putc(static_cast<unsigned char>(c), f));
        m.accepted += c;
        expect_result(m, f, "fastout_putc()", result, failures);
        if (result >= 0 && result != static_cast<unsigned char>(c))
          wrong(m, "fastout_putc() returned " + std::to_string(result));
        break;
      }
      case 1: {
        const std::size_t size = in.byte() % 4u + 1;
        const std::size_t count = in.byte();
        std::string data(in.take(size * count));
        for (std::size_t i = data.size(); i < size * count; ++i) data += pattern_byte(i);
        m.log += " write(" + std::to_string(size) + " x " + std::to_string(count) + ")";
        write_items(m, f, data, size, failures);
        break;
      }
      case 2: {
        const auto size = static_cast<std::size_t>(in.bits(2));
        std::string data(size, '\0');
        for (std::size_t i = 0; i < size; ++i) data[i] = pattern_byte(i + m.accepted.size());
        m.log += " write(" + std::to_string(size) + " bytes)";
        write_items(m, f, data, 1, failures);
        break;
      }
      case 3: {
        const std::string_view text = in.take(in.byte());
        const std::string s(text.substr(0, text.find('\0')));
        m.log += " fputs(" + std::to_string(s.size()) + " bytes)";
        const int result = stdio_code(m, "fastout_fputs()", fastout_fputs(s.c_str(), f));
        m.accepted += s;
        expect_result(m, f, "fastout_fputs()", result, failures);
        break;
      }
      case 4: op_printf(in, m, f); break;
      case 5: {
        m.log += " flush";
        expect_result(m, f, "fastout_flush()", stdio_code(m, "fastout_flush()", fastout_flush(f)),
                      failures);
        if (m.sticky == 0 && plan.written != m.accepted.size())
          wrong(m, "after a flush " + std::to_string(plan.written) + " of " +
                       std::to_string(m.accepted.size()) + " bytes are in the file");
        break;
      }
      case 6: op_cursor(in, m, f); break;
      case 7: op_refused(in, m, f); break;
      default: {
        expect_no_op(m, f, fastout_write("x", 1, 0, f));
        m.log += " write(0 items) fputs(\"\")";
        expect_result(m, f, "fastout_fputs(\"\")",
                      stdio_code(m, "fastout_fputs(\"\")", fastout_fputs("", f)), failures);
        break;
      }
    }
    expect_stats(m, f);
  }

  // close: the sticky error, or the flush's, or close's own.
  const std::uint64_t failures = plan.failures;
  m.log += " close";
  // fclose()'s answer: EOF, and the code in errno (the handle is gone).
  const int closed = stdio_code(m, "fastout_close()", fastout_close(f));
  int expected = m.sticky;
  if (expected == 0 && plan.failures != failures) expected = -plan.error;
  // Linux releases a descriptor whose close() was interrupted: no error.
  if (expected == 0 && plan.close_error != 0 && plan.close_error != EINTR)
    expected = -plan.close_error;
  if (closed != expected)
    wrong(m,
          "fastout_close() returned " + code_name(closed) + ", the model " + code_name(expected));
  const std::string actual = file.contents();
  if (actual.size() != plan.written || actual != m.accepted.substr(0, plan.written)) {
    std::size_t at = 0;
    while (at < actual.size() && at < m.accepted.size() && actual[at] == m.accepted[at]) ++at;
    wrong(m, "the file holds " + std::to_string(actual.size()) + " bytes, the fakes wrote " +
                 std::to_string(plan.written) + " of the " + std::to_string(m.accepted.size()) +
                 " accepted; they differ at byte " + std::to_string(at));
  }
  if (m.sticky == 0 && expected == 0 && actual.size() != m.accepted.size())
    wrong(m, "closed without an error, but the file holds " + std::to_string(actual.size()) +
                 " of " + std::to_string(m.accepted.size()) + " bytes");
}

}  // namespace
}  // namespace fastout_fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The "C" locale: %ls of a character beyond ASCII fails (glibc's).
  std::setlocale(LC_ALL, "C");
  fastout::detail::platform.write = fastout_fuzz::fake_write;
  fastout::detail::platform.writev = fastout_fuzz::fake_writev;
  fastout::detail::platform.close = fastout_fuzz::fake_close;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fastout_fuzz::scratch_file file;
  file.reset();
  fastout_fuzz::input in(data, size);
  fastout_fuzz::run(in, file);
  return 0;
}
