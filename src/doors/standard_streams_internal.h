// SPDX-License-Identifier: MIT
// What the C API asks of the process-wide standard writers beyond
// <fastout/standard_streams.h>.
#ifndef FASTOUT_SRC_DOORS_STANDARD_STREAMS_INTERNAL_H_
#define FASTOUT_SRC_DOORS_STANDARD_STREAMS_INTERNAL_H_

#include <fastout/options.h>

namespace fastout {
class file;
namespace detail {

/// fastout_set_stdout_options(): gives standard_output() `options` as
/// set_standard_output_options() does, but only while doing so has no
/// effect but the options: nothing has been handed to the writer yet (by
/// any door), it is open, and no options were given before (by this call or
/// set_standard_output_options()). Returns 0; EALREADY if it is too late,
/// EBUSY if a cursor holds the writer, and then nothing has changed. Throws
/// std::system_error where set_standard_output_options() throws (the new
/// writer cannot be made: ENOMEM, ENOTSUP), also with nothing changed.
int set_standard_output_options_before_use(const file_options& options);

/// The descriptor of the process-wide writer `writer` is -- 1 for
/// standard_output(), 2 for standard_error() -- or -1 if it is neither (or
/// not made yet): fastout_close() closes it, as fclose(stdout) closes fd 1.
int standard_descriptor_of(const file& writer) noexcept;

}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_SRC_DOORS_STANDARD_STREAMS_INTERNAL_H_
