// SPDX-License-Identifier: MIT
// The C API's boundary (c_boundary.cpp): what every C function needs to
// reach a writer and to report a failure the C way. c_api.cpp and
// printf.cpp (the printf family, defined beside the cache of parsed
// formats so that a call whose plan is cached reaches its executor without
// a call in between) both use it.
#ifndef FASTOUT_SRC_DOORS_C_BOUNDARY_INTERNAL_H_
#define FASTOUT_SRC_DOORS_C_BOUNDARY_INTERNAL_H_

#include <exception>

#include <fastout/c_api.h>
#include <fastout/detail/writer.h>
#include <fastout/file.h>

namespace fastout {

/// The writer behind a handle (from_c_handle(), inline).
inline file& writer_of(const fastout_file* handle) noexcept {
  return detail::file_of(detail::writer::from_hot_state(
      *reinterpret_cast<fastout_buffer_state*>(const_cast<fastout_file*>(handle))));
}

/// The C convention for a failure: errno, and its negation as the result.
int failure(int error_number) noexcept;

/// What an exception caught at the boundary means as an errno.
int error_number_of(const std::exception_ptr& error) noexcept;

/// A call on `writer` that failed: errno, the result, and the handle's
/// fastout_last_error().
int call_failed(file& writer, int error_number) noexcept;

/// The handle of standard_output() or standard_error() in `handle`, made at
/// the first call: 0, or a negative error code (ENOMEM) with errno set.
int standard_handle(file& (*writer)(), fastout_file*& handle) noexcept;

}  // namespace fastout

#endif  // FASTOUT_SRC_DOORS_C_BOUNDARY_INTERNAL_H_
