// SPDX-License-Identifier: MIT
// The process-wide writers to standard output and standard error, and what
// happens to them when the process exits.
//
// Each writer lives in static storage and is never destroyed, so that it
// still works while the process exits: in static destructors, in exit
// handlers, in std::cout's final flush. An exit handler flushes both, as
// stdio does for its streams, and does what coreutils' close_stdout() does
// with an error: reports it, and turns an exit status of 0 into a failure.
// Their write errors are reported, not thrown (write_errors::report), unless
// the program asks for exceptions: a program that never catches anything
// must end with one report and a failing status, never with an abort.
//
// The handler is registered through the platform layer (glibc's on_exit(),
// which passes it the exit status; atexit() elsewhere, which does not), from
// a constructor that runs before any other of the program's, so that it
// runs after every handler and static destructor registered later: text
// those write is flushed too, and a failing exit (_exit) skips nothing of
// the program's but C destructor functions and shared libraries' finalizers.
// Where the status is not known, a failure at exit ends the process with
// status 1 even if main() returned another failing status.
#include <fastout/standard_streams.h>

#include "doors/standard_streams_internal.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <system_error>

#include "platform/platform_internal.h"

namespace fastout {
namespace {

// One of the two writers.
struct standard_stream {
  int fd;
  const char* name;
  std::size_t default_buffer_size;
  alignas(file) unsigned char storage[sizeof(file)];
  // Set once the writer is made; read by the exit handler.
  std::atomic<file*> writer;
  // Options were given (set_options()): a writer that may compress, whose
  // replacement could end a stream. Only the program's thread reads it.
  bool options_given;
};

standard_stream output{
    detail::standard_output_descriptor, "<stdout>", default_buffer_size, {}, {nullptr}, false};
standard_stream error_output{
    detail::standard_error_descriptor, "<stderr>", 0, {}, {nullptr}, false};

// Once the exit handler has run, a writer made or remade after it (by a
// destructor that runs later) is unbuffered: nothing would flush it.
std::atomic<bool> exit_handler_ran{false};

file_options default_options(const standard_stream& stream) {
  file_options options;
  options.buffer_size = exit_handler_ran.load() ? 0 : stream.default_buffer_size;
  options.errors = write_errors::report;
  return options;
}

// The options a program gives a standard writer, as the writer takes them.
file_options chosen_options(const file_options& options) {
  file_options chosen = options;
  if (exit_handler_ran.load()) chosen.buffer_size = 0;
  if (chosen.errors == write_errors::automatic) chosen.errors = write_errors::report;
  return chosen;
}

// Makes the writer of `stream`: with the options the program gives it
// before its first use (`first`), so that it gets one buffer and not the
// default one and then another, else with the defaults. May throw, and
// then nothing is made.
file& make(standard_stream& stream, const file_options* first) {
  const file_options options = first != nullptr ? chosen_options(*first) : default_options(stream);
  file* writer = new (stream.storage) file(file::borrow(stream.fd, options, stream.name));
  stream.options_given = first != nullptr;
  stream.writer.store(writer);
  return *writer;
}

// The process's writers, made once (thread-safe, as any function-local
// static): by the first call, with its options if it gives any.
file& standard_output_made_with(const file_options* first) {
  static file& writer = make(output, first);
  return writer;
}

file& standard_error_made_with(const file_options* first) {
  static file& writer = make(error_output, first);
  return writer;
}

void set_options(file& writer, standard_stream& stream, const file_options& options) {
  const file_options chosen = chosen_options(options);
  file fresh = file::borrow(stream.fd, chosen, stream.name);  // may throw: nothing changed
  // May throw: nothing changed, and the error is the writer's. A closed
  // writer (the C API's fastout_close()) has nothing to flush.
  if (writer.is_open()) writer.flush();
  writer = std::move(fresh);  // the old one has nothing left to write
  stream.options_given = true;
}

// The writer of `stream` for options the program gives: made now, with
// them, if it was not made yet (`made_now`), else the one made before.
file& writer_for_options(standard_stream& stream, file& (*made_with)(const file_options*),
                         const file_options& options, bool& made_now) {
  const bool made_before = stream.writer.load() != nullptr;
  file& writer = made_with(&options);
  made_now = !made_before && stream.options_given;
  return writer;
}

// A writer not made yet is made with the options; one made before is
// replaced by one with them.
void give_options(standard_stream& stream, file& (*made_with)(const file_options*),
                  const file_options& options) {
  bool made_now = false;
  file& writer = writer_for_options(stream, made_with, options, made_now);
  if (!made_now) set_options(writer, stream, options);
}

// Flushes one writer at exit. Returns true if it has failed, now or before.
bool finish_at_exit(standard_stream& stream, int status) noexcept {
  file* writer = stream.writer.load();
  if (writer == nullptr) return false;
  const bool failed_before = static_cast<bool>(writer->error());
  const write_errors mode = writer->error_mode();
  // Asked once, when the writer was made: whether the descriptor is a
  // terminal is not asked again (an fstat() at every exit).
  const bool line_buffered = writer->line_buffered();
  try {
    writer->flush();
  } catch (const std::exception&) {
    // The error is the writer's sticky error now (EBUSY, a cursor alive at
    // exit, is not: its text was never handed over).
  }
  const bool failed = static_cast<bool>(writer->error());
  try {
    if (failed && (mode == write_errors::report || !failed_before || status == 0)) {
      // Reported, not thrown, while the program ran; or met now; or thrown
      // to a program that went on to exit with 0 as if all was well: the
      // writer's destructor reports it through the error handler, with
      // every byte it lost. (A writer the program closed has reported
      // already: its destructor has nothing left to say.)
      file finished(std::move(*writer));
    } else {
      // Nothing to report, or an earlier error the program has already been
      // told of (it was thrown) and that it answered with a failing status.
      writer->close();
    }
  } catch (const std::exception&) {
  }
  // Text written after this (by a destructor that runs later) goes straight
  // to the descriptor.
  file_options unbuffered;
  unbuffered.buffer_size = 0;
  unbuffered.buffer_mode = line_buffered ? buffering::line : buffering::full;
  unbuffered.errors = mode;
  try {
    *writer = file::borrow(stream.fd, unbuffered, stream.name);
  } catch (const std::exception&) {
  }
  return failed;
}

void flush_at_exit(int status, bool status_known) noexcept {
  exit_handler_ran.store(true);
  // Without the status, the program may have meant success: as status 0.
  if (!status_known) status = 0;
  bool failed = finish_at_exit(output, status);
  failed = finish_at_exit(error_output, status) || failed;
  if (failed && status == 0) {
    // As coreutils' close_stdout(): a process that lost output must not
    // report success. _exit() is the only way to change the status from an
    // exit handler; stdio's own flush, which exit() would have done after
    // this handler, is done first.
    std::fflush(nullptr);
    detail::exit_now(EXIT_FAILURE);
  }
}

// Priority 101, the first a program may use: before the constructors of the
// program's own static objects, whose destructors therefore run before the
// handler. The handler stays registered for the life of the process, so
// libfastout.so is linked with -z nodelete: dlclose() never unmaps it.
__attribute__((constructor(101))) void register_flush_at_exit() {
  detail::run_at_exit(flush_at_exit);
}

}  // namespace

file& standard_output() { return standard_output_made_with(nullptr); }

file& standard_error() { return standard_error_made_with(nullptr); }

void set_standard_output_options(const file_options& options) {
  give_options(output, standard_output_made_with, options);
}

void set_standard_error_options(const file_options& options) {
  give_options(error_output, standard_error_made_with, options);
}

int detail::standard_descriptor_of(const file& writer) noexcept {
  if (output.writer.load() == &writer) return output.fd;
  if (error_output.writer.load() == &writer) return error_output.fd;
  return -1;
}

int detail::set_standard_output_options_before_use(const file_options& options) {
  if (exit_handler_ran.load()) return EALREADY;
  bool made_now = false;
  file& writer = writer_for_options(output, standard_output_made_with, options, made_now);
  if (made_now) return 0;  // made with them
  // Closed (fastout_close()) or given options: too late, whatever it holds.
  if (output.options_given || !writer.is_open()) return EALREADY;
  try {
    // Text that a stream buffer (std::cout after sync_with_stdio()) holds
    // in lent space is the writer's, and counted, once taken back.
    writer_of(writer).take_back_and_check();
  } catch (const std::system_error& e) {
    if (e.code().value() == EBUSY) return EBUSY;
    throw;
  }
  if (writer.stats().bytes_accepted != 0) return EALREADY;
  // Nothing to flush, and a plain writer that has written nothing writes
  // nothing as it goes: only the options change.
  set_options(writer, output, options);
  return 0;
}

}  // namespace fastout
