// SPDX-License-Identifier: MIT
// fastout's C API (include/fastout/c_api.h): the out-of-line halves of
// the C functions, on top of the C++ writer.
//
// A handle is a pointer to the writer's hot state (fastout_buffer_state, the
// writer's first base), so the header's inline fastout_putc() and the C++
// writer's inline put() advance the same pointer. Everything here reaches the
// writer through its public and internal interfaces (file.h, and
// detail/writer.h through detail::writer_of()), and catches
// every exception at the boundary: a C caller gets a negative errno, never an
// exception and never an abort.
#include <fastout/c_api.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <unordered_set>

#include <fastout/budget.h>
#include <fastout/compression.h>
#include <fastout/file.h>
#include <fastout/standard_streams.h>

#include "doors/c_boundary_internal.h"
#include "platform/platform_internal.h"
#include "doors/standard_streams_internal.h"

namespace fastout {

fastout_file* c_handle(file& f) noexcept {
  return reinterpret_cast<fastout_file*>(&detail::writer_of(f).hot_state());
}

file& from_c_handle(fastout_file* handle) noexcept { return writer_of(handle); }

namespace {

// Runs `call` (which returns a nonnegative int) and turns any exception
// into a negative errno.
template <typename Call>
FASTOUT_ALWAYS_INLINE int guarded(Call&& call) noexcept {
  try {
    return call();
  } catch (...) {
    return failure(error_number_of(std::current_exception()));
  }
}

// Runs `call` on `writer` (it returns a nonnegative int, or a negative code
// of its own) and turns any exception into a negative errno. A writer that
// reports its write errors instead of throwing them (write_errors::report:
// the C API's own writers, the standard streams) is asked afterwards: its
// sticky error is the call's result, as it is for every later call.
template <typename Call>
FASTOUT_ALWAYS_INLINE int guarded(file& writer, Call&& call) noexcept {
  int result;
  try {
    result = call();
  } catch (...) {
    return call_failed(writer, error_number_of(std::current_exception()));
  }
  if (int error_number = detail::writer_of(writer).sticky_error())
    return call_failed(writer, error_number);
  if (result < 0) return call_failed(writer, -result);
  return result;
}

// ------------------------------------------------- writers the C API owns

// The writers made by fastout_open() and its siblings, which fastout_close()
// frees and which are flushed at exit if still open. A C++ writer's handle
// (c_handle()) is not here: its object belongs to its C++ owner. Never
// destroyed, so that writers still open at exit stay reachable (no leak
// report) and usable by whatever runs later.
struct owned_writers {
  std::mutex mutex;
  std::unordered_set<file*> writers;
};

owned_writers& owned() {
  static owned_writers* writers = new owned_writers;
  return *writers;
}

// Flushes and closes, as stdio does at exit, every writer the C API made
// that is still open. Each is finished as its destructor would (what cannot
// be written goes to the error handler) and stays allocated and closed, so
// that a late call on its handle returns -EBADF instead of touching freed
// memory, and a late fastout_close() still frees it.
struct exit_flush {
  exit_flush() noexcept = default;
  exit_flush(const exit_flush&) = delete;
  exit_flush& operator=(const exit_flush&) = delete;
  ~exit_flush() {
    owned_writers& o = owned();
    std::lock_guard<std::mutex> lock(o.mutex);
    for (file* writer : o.writers) file finishing(std::move(*writer));
  }
};

// Registered with the first writer, so it runs at exit after any atexit()
// handler registered later, which may still write.
void register_exit_flush() { static exit_flush flush_at_exit; }

// Makes a writer the C API owns: `make(memory)` constructs it in place. The
// memory is listed before the writer is made, so that nothing can fail after
// a file has been opened (and perhaps created or truncated).
template <typename Make>
fastout_file* make_owned(Make&& make) noexcept {
  void* memory = ::operator new(sizeof(file), std::nothrow);
  if (memory == nullptr) {
    failure(ENOMEM);
    return nullptr;
  }
  owned_writers& o = owned();
  try {
    register_exit_flush();
    std::lock_guard<std::mutex> lock(o.mutex);
    o.writers.insert(static_cast<file*>(memory));
  } catch (...) {
    ::operator delete(memory);
    failure(ENOMEM);
    return nullptr;
  }
  try {
    file* writer = make(memory);
    return c_handle(*writer);
  } catch (...) {
    int error_number = error_number_of(std::current_exception());
    {
      std::lock_guard<std::mutex> lock(o.mutex);
      o.writers.erase(static_cast<file*>(memory));
    }
    ::operator delete(memory);
    failure(error_number);
    return nullptr;
  }
}

// The layout of fastout_options in 0.2.0, before the compression fields:
// programs built against that header pass this size.
constexpr std::size_t options_size_0_2 = offsetof(fastout_options, compression);

// fastout_options' compression fields as compression_options: 0, or EINVAL
// for a value no enum names. The defaults for an older layout.
int convert_compression(const fastout_options* in, compression_options& out) {
  out = compression_options();
  if (in == nullptr || in->size < sizeof(fastout_options)) return 0;
  const bool default_level = in->compression_level == FASTOUT_COMPRESSION_DEFAULT_LEVEL;
  switch (in->compression) {
    case FASTOUT_COMPRESSION_NONE: break;
    case FASTOUT_COMPRESSION_ZSTD:
      out = default_level ? zstd{} : zstd{in->compression_level};
      break;
    case FASTOUT_COMPRESSION_GZIP:
      out = default_level ? gzip{} : gzip{in->compression_level};
      break;
    case FASTOUT_COMPRESSION_BY_EXTENSION:
      out = default_level ? by_extension{}
                          : by_extension{in->compression_level, in->compression_level};
      break;
    default: return EINVAL;
  }
  out.workers = in->compression_workers;
  return 0;
}

// fastout_options as file_options: each field as the output_file()
// parameter it stands for, read by options.h's apply_options() as
// output_file() reads them. Returns 0 or the errno (EINVAL) that says they
// are not valid. `size` must cover every field of 0.2.0's layout (a later
// field missing is at its default); a larger struct, from a newer header,
// must hold zeros beyond the fields this version knows (a newer field at
// its default).
int convert(const fastout_options* in, file_options& out, std::string* name) {
  if (in == nullptr) return 0;
  if (in->size != options_size_0_2 && in->size < sizeof(fastout_options))
    return EINVAL;  // not initialized, or a layout no release had
  if (in->size > sizeof(fastout_options)) {
    const unsigned char* extra =
        reinterpret_cast<const unsigned char*>(in) + sizeof(fastout_options);
    for (std::size_t i = 0; i < in->size - sizeof(fastout_options); ++i)
      if (extra[i] != 0) return EINVAL;
  }
  open_mode mode;
  switch (in->mode) {
    case FASTOUT_TRUNCATE: mode = open_mode::truncate; break;
    case FASTOUT_APPEND: mode = open_mode::append; break;
    case FASTOUT_EXCLUSIVE: mode = open_mode::create_exclusive; break;
    default: return EINVAL;
  }
  buffering buffer_mode;
  switch (in->buffering) {
    case FASTOUT_BUFFERING_AUTOMATIC: buffer_mode = buffering::automatic; break;
    case FASTOUT_BUFFERING_FULL: buffer_mode = buffering::full; break;
    case FASTOUT_BUFFERING_LINE: buffer_mode = buffering::line; break;
    default: return EINVAL;
  }
  if (in->permissions > 07777) return EINVAL;
  compression_options compression_chosen;
  if (int error_number = convert_compression(in, compression_chosen)) return error_number;
  const bool keep_descriptor = in->size >= sizeof(fastout_options) && in->keep_descriptor_open != 0;
  detail::apply_options(out, mode, buffer_mode, fastout::permissions = in->permissions,
                        fastout::buffer_size = in->buffer_size, compression_chosen,
                        fastout::keep_descriptor_open = keep_descriptor);
  // The buffer budget (issue 28): FASTOUT_DEFAULT_BUFFER_SIZE, which
  // fastout_options_init() sets, lets the budget size the buffer.
  out.buffer_size_exact = false;
  if (name != nullptr && in->name != nullptr) *name = in->name;
  return 0;
}

// fastout_open_stdout() and fastout_open_stderr(): the handle of the
// process-wide writer, so that C and C++ share one buffer per descriptor, in
// order, flushed at exit. Options are applied as setvbuf() applies its
// arguments; a writer that fastout_close() closed is opened again, as the
// process's stdout cannot be freed.
fastout_file* open_standard(const fastout_options* options, file& (*writer)(),
                            void (*set_options)(const file_options&),
                            std::size_t default_buffer) noexcept {
  file_options chosen;
  chosen.buffer_size = default_buffer;  // what reopening with NULL options gives
  if (int error_number = convert(options, chosen, nullptr)) {
    failure(error_number);
    return nullptr;
  }
  fastout_file* handle = nullptr;
  int result = guarded([&] {
    // Options first: a writer not made yet is made with them, with one
    // buffer (not the default one, then another).
    if (options != nullptr) set_options(chosen);
    file& standard = writer();
    if (!standard.is_open()) set_options(chosen);
    handle = c_handle(standard);
    return 0;
  });
  return result < 0 ? nullptr : handle;
}

// stdio's answer for a failure of a call named after one of its own
// (putc, fputs, puts, fflush, fclose): EOF, the cause in errno (which the
// call has set) and in fastout_last_error(). A result that is not negative
// passes unchanged.
inline int eof_on_failure(int result) noexcept { return result < 0 ? EOF : result; }
static_assert(EOF < 0, "a program written for `< 0` keeps working");

}  // namespace
}  // namespace fastout

using fastout::eof_on_failure;
using fastout::file;
using fastout::failure;
using fastout::guarded;
using fastout::writer_of;

// ------------------------------------------------------------- opening

fastout_file* fastout_open(const char* path, const fastout_options* options) noexcept {
  fastout::file_options file_options;
  if (path == nullptr) {
    failure(EINVAL);
    return nullptr;
  }
  if (int error_number = fastout::convert(options, file_options, nullptr)) {
    failure(error_number);
    return nullptr;
  }
  // As stdio: a call returns its error, and every later call too; nothing is
  // thrown to catch, and what the program writes after an error is counted
  // as lost.
  file_options.errors = fastout::write_errors::report;
  fastout_file* handle =
      fastout::make_owned([&](void* memory) { return new (memory) file(path, file_options); });
  if (handle != nullptr && options != nullptr && options->mode == FASTOUT_APPEND) {
    // As fopen(path, "a"): fastout_ftell() starts at the end, where the
    // first write lands (O_APPEND alone moves the offset only then). A file
    // that cannot seek (a FIFO, a compressed stream) has no position to set.
    const int saved_errno = errno;
    try {
      fastout::detail::writer_of(writer_of(handle)).seek(0, SEEK_END);
    } catch (...) {
    }
    errno = saved_errno;
  }
  return handle;
}

fastout_file* fastout_fdopen(int fd, int ownership, const fastout_options* options) noexcept {
  fastout::file_options file_options;
  std::string name;
  if (ownership != FASTOUT_ADOPT && ownership != FASTOUT_BORROW) {
    failure(EINVAL);
    return nullptr;
  }
  int error_number = 0;
  try {
    error_number = fastout::convert(options, file_options, &name);
  } catch (...) {
    error_number = ENOMEM;  // copying the name
  }
  if (error_number != 0) {
    failure(error_number);
    return nullptr;
  }
  file_options.errors = fastout::write_errors::report;  // as fastout_open()
  return fastout::make_owned([&](void* memory) {
    return new (memory)
        file(ownership == FASTOUT_ADOPT ? file::adopt(fd, file_options, std::move(name))
                                        : file::borrow(fd, file_options, std::move(name)));
  });
}

fastout_file* fastout_open_stdout(const fastout_options* options) noexcept {
  return fastout::open_standard(options, fastout::standard_output,
                                fastout::set_standard_output_options, fastout::default_buffer_size);
}

fastout_file* fastout_open_stderr(const fastout_options* options) noexcept {
  return fastout::open_standard(options, fastout::standard_error,
                                fastout::set_standard_error_options, 0);
}

// ----------------------------------------------------- standard output

fastout_file* fastout_stdout(void) noexcept {
  fastout_file* handle = nullptr;
  return fastout::standard_handle(fastout::standard_output, handle) < 0 ? nullptr : handle;
}

fastout_file* fastout_stderr(void) noexcept {
  fastout_file* handle = nullptr;
  return fastout::standard_handle(fastout::standard_error, handle) < 0 ? nullptr : handle;
}

int fastout_set_stdout_options(const fastout_options* options) noexcept {
  fastout::file_options chosen;
  if (options == nullptr) return failure(EINVAL);
  if (int error_number = fastout::convert(options, chosen, nullptr)) return failure(error_number);
  return guarded([&] {
    int error_number = fastout::detail::set_standard_output_options_before_use(chosen);
    return error_number != 0 ? failure(error_number) : 0;
  });
}

// fastout_sync_with_stdio() is in c_api_stdio_sync.cpp: it reaches
// std::cout, and <iostream>'s start-up (ios_base::Init) would come into every
// C program that links this object.

// -------------------------------------------------------------- output

int fastout_putc_slow(int c, fastout_file* handle) noexcept {
  if (handle == nullptr) return eof_on_failure(failure(EINVAL));
  file& writer = writer_of(handle);
  return eof_on_failure(guarded(writer, [&] {
    writer.put(static_cast<char>(c));
    return static_cast<int>(static_cast<unsigned char>(c));
  }));
}

size_t fastout_write_slow(const void* data, size_t size, size_t count,
                          fastout_file* handle) noexcept {
  if (size == 0 || count == 0) return 0;  // as fwrite: nothing, and no error
  if (handle == nullptr) {
    failure(EINVAL);
    return 0;
  }
  file& writer = writer_of(handle);
  if (count > SIZE_MAX / size) {
    fastout::call_failed(writer, EOVERFLOW);
    return 0;
  }
  if (data == nullptr) {
    fastout::call_failed(writer, EINVAL);
    return 0;
  }
  int result = guarded(writer, [&] {
    writer.write(data, size * count);
    return 0;
  });
  return result < 0 ? 0 : count;
}

int fastout_fputs_slow(const char* text, fastout_file* handle) noexcept {
  if (handle == nullptr) return eof_on_failure(failure(EINVAL));
  file& writer = writer_of(handle);
  if (text == nullptr) return eof_on_failure(fastout::call_failed(writer, EINVAL));
  return eof_on_failure(guarded(writer, [&] {
    // An empty text still meets a closed or failed writer's error, as in
    // file::write().
    writer.write(text, std::strlen(text));
    return 1;
  }));
}

int fastout_putchar_slow(int c) noexcept {
  fastout_file* handle = nullptr;
  if (int error = fastout::standard_handle(fastout::standard_output, handle))
    return eof_on_failure(error);
  return fastout_putc_slow(c, handle);
}

int fastout_puts_slow(const char* text) noexcept {
  fastout_file* handle = nullptr;
  if (int error = fastout::standard_handle(fastout::standard_output, handle))
    return eof_on_failure(error);
  file& writer = writer_of(handle);
  if (text == nullptr) return eof_on_failure(fastout::call_failed(writer, EINVAL));
  return eof_on_failure(guarded(writer, [&] {
    // One call, as puts(): on a line-buffered writer the newline sends the
    // line with its text.
    writer.write(text, std::strlen(text));
    writer.put('\n');
    return 1;
  }));
}

// ---------------------------------------------------------------- cursor

namespace {
// A cursor that cannot go on: no space, and the error, which errno gets too
// (and the writer's fastout_last_error(), when there is a writer).
fastout_buffer_state stopped(int* error, int error_number, file* writer = nullptr) noexcept {
  errno = error_number;
  *error = -error_number;
  if (writer != nullptr) fastout::detail::writer_of(*writer).set_last_call_error(-error_number);
  return fastout_buffer_state{nullptr, nullptr};
}
}  // namespace

fastout_buffer_state fastout_cursor_begin_slow(fastout_file* handle, int* error) noexcept {
  if (handle == nullptr) return stopped(error, EINVAL);
  file& writer = writer_of(handle);
  try {
    // Lending alone would lend a closed or failed writer's (empty) space.
    fastout::detail::writer_of(writer).take_back_and_check();
    // A writer with write_errors::report does not throw its error.
    if (std::error_code failed = writer.error()) return stopped(error, failed.value(), &writer);
    return fastout::detail::writer_of(writer).lend_to_cursor();
  } catch (...) {
    return stopped(error, fastout::error_number_of(std::current_exception()), &writer);
  }
}

fastout_buffer_state fastout_cursor_putc_slow(int c, fastout_file* handle, char* pos,
                                              int* error) noexcept {
  if (handle == nullptr) return stopped(error, EINVAL);
  file& writer = writer_of(handle);
  if (*error < 0) {
    // Stopped: its error again. A writer that reports its write error
    // instead of throwing it takes the byte all the same, as each of its
    // other calls does, so that what it lost counts every byte.
    std::error_code failed = writer.error();
    if (failed && -failed.value() == *error &&
        writer.error_mode() == fastout::write_errors::report) {
      try {
        writer.put(static_cast<char>(c));
      } catch (...) {
        // Lent to a C++ cursor, or closed: the byte was refused.
      }
    }
    fastout::detail::writer_of(writer).set_last_call_error(*error);
    errno = -*error;
    return fastout_buffer_state{nullptr, nullptr};
  }
  // The writer's own put() flushes a full buffer and meets line buffering
  // and errors; the cursor borrows again afterwards. If put() throws, the
  // writer's position is the truth and the cursor is stopped.
  fastout::detail::writer_of(writer).take_back_from_cursor(pos);
  try {
    writer.put(static_cast<char>(c));
    if (std::error_code failed = writer.error()) return stopped(error, failed.value(), &writer);
    return fastout::detail::writer_of(writer).lend_to_cursor();
  } catch (...) {
    return stopped(error, fastout::error_number_of(std::current_exception()), &writer);
  }
}

int fastout_cursor_end_slow(fastout_file* handle, char* pos, int error) noexcept {
  // A stopped cursor holds nothing: begin refused it, or put() took the
  // position back before it failed.
  if (error < 0) return failure(-error);
  if (handle == nullptr) return failure(EINVAL);
  fastout::detail::writer_of(writer_of(handle)).take_back_from_cursor(pos);
  return 0;
}

FASTOUT_HOT int fastout_flush(fastout_file* handle) noexcept {
  if (handle == nullptr) return eof_on_failure(failure(EINVAL));
  file& writer = writer_of(handle);
  return eof_on_failure(guarded(writer, [&] {
    writer.flush();
    return 0;
  }));
}

int fastout_close(fastout_file* handle) noexcept {
  if (handle == nullptr) return 0;
  file* writer = &writer_of(handle);
  // Standard output (or error) is closed as fclose(stdout) closes it: its
  // descriptor too, once, when the writer was open (a second close must
  // not close whatever has taken descriptor 1 since).
  const int standard_fd = writer->is_open() ? fastout::detail::standard_descriptor_of(*writer) : -1;
  // The error is returned, as fclose() returns it: not thrown, and not
  // reported through the error handler as well, whatever the writer's
  // write_errors.
  int result = 0;
  try {
    fastout::detail::writer_of(*writer).close_checked();
  } catch (...) {
    result = fastout::call_failed(*writer, fastout::error_number_of(std::current_exception()));
  }
  if (standard_fd >= 0 && !writer->is_open()) {
    // Closed whatever the flush met, as fclose() does; Linux releases a
    // descriptor whose close() was interrupted, so EINTR is no error.
    if (fastout::detail::platform.close(standard_fd) != 0 && errno != EINTR && result == 0)
      result = fastout::call_failed(*writer, errno);
  }
  bool owned_by_c = false;
  {
    fastout::owned_writers& o = fastout::owned();
    std::lock_guard<std::mutex> lock(o.mutex);
    owned_by_c = o.writers.erase(writer) != 0;
  }
  if (owned_by_c) {
    // Closed above, unless a C++ cursor held it (EBUSY): then the destructor
    // closes it and reports as for any writer destroyed under a cursor.
    writer->~file();
    ::operator delete(writer);
  }
  if (result < 0) errno = -result;
  return eof_on_failure(result);
}

int fastout_compression_available(int compression) noexcept {
  switch (compression) {
    case FASTOUT_COMPRESSION_NONE:
    case FASTOUT_COMPRESSION_BY_EXTENSION: return 1;
    case FASTOUT_COMPRESSION_ZSTD:
      return fastout::compression_available(fastout::compression_format::zstd) ? 1 : 0;
    case FASTOUT_COMPRESSION_GZIP:
      return fastout::compression_available(fastout::compression_format::gzip) ? 1 : 0;
    default: return 0;
  }
}

// The shared pool of compression workers.
int fastout_set_compression_pool_threads(unsigned threads) noexcept {
  if (threads > fastout::most_compression_pool_threads) return -EINVAL;
  fastout::set_compression_pool_threads(threads);
  return 0;
}

unsigned fastout_compression_pool_threads(void) noexcept {
  return fastout::compression_pool_threads();
}

// ------------------------------------------- errors nobody was told of

namespace fastout {
namespace {
// The C handler and its context, read together by the C++ handler that
// stands for them. Never destroyed: reports come at exit, after static
// destructors.
struct c_error_handler {
  std::mutex mutex;
  fastout_error_handler handler = nullptr;
  void* context = nullptr;
};

c_error_handler& c_handler() {
  static c_error_handler* chosen = new c_error_handler;
  return *chosen;
}

void call_c_handler(const error_report& report) noexcept {
  fastout_error_handler handler;
  void* context;
  {
    c_error_handler& c = c_handler();
    std::lock_guard<std::mutex> lock(c.mutex);
    handler = c.handler;
    context = c.context;
  }
  const fastout_error_report c_report = {
      report.path,         -report.error.value(),      report.bytes_lost,
      report.close_failed, report.sync_failed ? 1 : 0, report.not_replaced ? 1 : 0};
  if (handler != nullptr) handler(&c_report, context);
}
}  // namespace
}  // namespace fastout

int fastout_set_error_handler(fastout_error_handler handler, void* context) noexcept {
  fastout::c_error_handler& c = fastout::c_handler();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.handler = handler;
    c.context = context;
  }
  // NULL is the default handler, C++'s own: no C report in between.
  fastout::set_error_handler(handler == nullptr ? nullptr : fastout::call_c_handler);
  return 0;
}

void fastout_default_error_handler(const fastout_error_report* report, void*) noexcept {
  if (report == nullptr) return;
  fastout::error_report cxx{report->path,
                            std::error_code(-report->error, fastout::detail::error_category()),
                            report->bytes_lost, report->close_failed != 0};
  cxx.sync_failed = report->sync_failed != 0;
  cxx.not_replaced = report->not_replaced != 0;
  fastout::default_error_handler(cxx);
}

void fastout_silent_error_handler(const fastout_error_report*, void*) noexcept {}

// ------------------------------------------------------------- seeking

namespace fastout {
namespace {
// A position call on `handle` (the writer's seek() or position()): its
// result, or -1 with errno and fastout_last_error() set, as stdio's.
template <typename Call>
std::int64_t position_call(fastout_file* handle, Call&& call) noexcept {
  if (handle == nullptr) {
    failure(EINVAL);
    return -1;
  }
  file& writer = writer_of(handle);
  try {
    return call(detail::writer_of(writer));
  } catch (...) {
    call_failed(writer, error_number_of(std::current_exception()));
    return -1;
  }
}
}  // namespace
}  // namespace fastout

int fastout_fseeko(fastout_file* handle, int64_t offset, int whence) noexcept {
  return fastout::position_call(
             handle, [&](fastout::detail::writer& w) { return w.seek(offset, whence); }) < 0
             ? -1
             : 0;
}

int64_t fastout_ftello(fastout_file* handle) noexcept {
  return fastout::position_call(handle, [](fastout::detail::writer& w) { return w.position(); });
}

int fastout_fseek(fastout_file* handle, long offset, int whence) noexcept {
  return fastout_fseeko(handle, static_cast<int64_t>(offset), whence);
}

long fastout_ftell(fastout_file* handle) noexcept {
  const int64_t position = fastout_ftello(handle);
  if (position > static_cast<int64_t>(LONG_MAX)) {
    // As ftell() where long is narrower than the position (Windows).
    fastout::call_failed(writer_of(handle), EOVERFLOW);
    return -1;
  }
  return static_cast<long>(position);
}

void fastout_rewind(fastout_file* handle) noexcept { fastout_fseeko(handle, 0, SEEK_SET); }

// ---------------------------------------------------------- inspecting

int fastout_error(const fastout_file* handle) noexcept {
  if (handle == nullptr) return -EINVAL;
  std::error_code error = writer_of(handle).error();
  return error ? -error.value() : 0;
}

int fastout_last_error(const fastout_file* handle) noexcept {
  if (handle == nullptr) return -EINVAL;  // what a call with a NULL handle returned
  return fastout::detail::writer_of(writer_of(handle)).last_call_error();
}

const char* fastout_error_name(int code) noexcept {
  if (code == INT_MIN) return "Unknown error";
  int error_number = code < 0 ? -code : code;
  if (error_number == 0) return "Success";
  // The same English texts on every platform for the errors fastout
  // reports (glibc's), untranslated and static.
  const char* text = fastout::detail::error_text(error_number);
  return text != nullptr ? text : "Unknown error";
}

int fastout_get_stats(const fastout_file* handle, fastout_stats* stats) noexcept {
  if (handle == nullptr || stats == nullptr) return failure(EINVAL);
  const file& writer = writer_of(handle);
  fastout::file_stats s = writer.stats();
  stats->bytes_accepted = s.bytes_accepted;
  stats->bytes_written = s.bytes_written;
  stats->write_calls = s.write_calls;
  stats->flushes = s.flushes;
  stats->bytes_pending = writer.bytes_pending();
  stats->bytes_delivered = s.bytes_delivered;
  return 0;
}

const char* fastout_path(const fastout_file* handle) noexcept {
  if (handle == nullptr) return nullptr;
  return writer_of(handle).path().c_str();
}

int fastout_fileno(const fastout_file* handle) noexcept {
  // As fileno(): -1 and errno for a stream without a descriptor.
  if (handle == nullptr) {
    failure(EINVAL);
    return -1;
  }
  int fd = writer_of(handle).descriptor();
  if (fd < 0) failure(EBADF);
  return fd < 0 ? -1 : fd;
}

// ----------------------------------------------------- the buffer budget

int fastout_set_buffer_budget(size_t bytes) noexcept {
  if (bytes < fastout::smallest_buffer_budget) return failure(EINVAL);
  fastout::set_buffer_budget(bytes);  // cannot throw: the size was checked
  return 0;
}

int fastout_get_buffer_budget(fastout_buffer_budget* budget) noexcept {
  if (budget == nullptr) return failure(EINVAL);
  const fastout::buffer_budget_figures now = fastout::buffer_budget();
  budget->limit = now.limit;
  budget->in_use = now.in_use;
  budget->holders = now.holders;
  return 0;
}

int fastout_get_buffer_size(const fastout_file* handle, size_t* size) noexcept {
  if (handle == nullptr || size == nullptr) return failure(EINVAL);
  *size = writer_of(handle).stats().buffer_size;
  return 0;
}
