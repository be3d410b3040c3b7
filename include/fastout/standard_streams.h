// SPDX-License-Identifier: MIT
// fastout's standard output and standard error: one process-wide writer for
// each, flushed when the process exits normally, as stdio's stdout and
// stderr are.
//
//   auto& out = fastout::standard_output();
//   out.print("{} items\n", count);   // goes out when the buffer fills, or at exit
//
// docs/guide.md ("Standard output and error") has the rules: buffering, what
// happens at exit and on a write error, SIGPIPE, and the order of this
// output relative to printf and std::cout (fastout::sync_with_stdio() in
// <fastout/iostream.h> keeps them in order).
#ifndef FASTOUT_STANDARD_STREAMS_H_
#define FASTOUT_STANDARD_STREAMS_H_

#include <fastout/file.h>

#if __cplusplus >= 201703L

namespace fastout {

/// The process-wide writer to standard output (fd 1), named "<stdout>".
///
/// Made at the first call, with a buffer of default_buffer_size; as stdio's
/// stdout, it is line-buffered on a terminal and fully buffered on a pipe or
/// a file. Every call returns the same writer, so that every part of a
/// program writes into one buffer, in order. It is flushed when the process
/// exits normally (return from main(), exit()).
///
/// A write error (/dev/full, a pipe whose reader is gone with SIGPIPE
/// ignored) is not thrown, as stdio's and coreutils' are not
/// (write_errors::report): the error is sticky and readable (error(),
/// stats()), every later call is accepted and dropped without a system
/// call, and at exit one line on stderr (the error handler) reports it with
/// every byte lost, and an exit status of 0 becomes 1. A program that
/// wants exceptions asks with set_standard_output_options(), with
/// file_options::errors = write_errors::throw_exception. See docs/guide.md.
/// It is a writer like any other otherwise: for one thread at a time. Throws
/// std::system_error (ENOMEM) if its buffer cannot be allocated.
FASTOUT_API file& standard_output();

/// The process-wide writer to standard error (fd 2), named "<stderr>": as
/// stdio's stderr, unbuffered, so that every call goes out at once. Flushed
/// and checked at exit as standard_output() is.
FASTOUT_API file& standard_error();

/// Chooses how standard_output() writes from now on, as setvbuf() does for
/// stdout: `options.buffer_size` and `options.buffer_mode` (automatic looks
/// at what fd 1 is now), what a write error does, `options.errors`
/// (write_errors::automatic: reported, not thrown), and compression,
/// `options.compression` (docs/compression.md: `tool | zstd -d` works, and
/// the exit handler ends the stream). The rest apply as to any borrowed
/// descriptor (file::borrow()): `mode`, `permissions` and `flags` do not
/// apply to a descriptor that is already open, and what needs a path
/// (open_mode::replace, sync_directory) is refused with EINVAL. The writer
/// stays the same object: references to it stay valid.
/// What it holds is flushed first, and a compressed stream it was writing is
/// ended; throws std::system_error if that fails (the writer is then
/// unchanged) or if the new writer cannot be made (ENOMEM, EINVAL; ENOTSUP
/// for a compression format this build lacks). Call it before the first write
/// for options that must hold from the first byte; the C API's
/// fastout_set_stdout_options() refuses to run later.
FASTOUT_API void set_standard_output_options(const file_options& options);
/// The same for standard_error().
FASTOUT_API void set_standard_error_options(const file_options& options);

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_STANDARD_STREAMS_H_
