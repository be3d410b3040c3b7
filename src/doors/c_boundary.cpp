// SPDX-License-Identifier: MIT
// The C API's boundary (c_boundary_internal.h): a failure the C way (errno
// and a negative result), what an exception means as an errno, and the
// handles of the standard writers. Shared by c_api.cpp and printf.cpp's
// printf family, so that neither calls into the other.
#include "doors/c_boundary_internal.h"

#include <cerrno>
#include <exception>
#include <new>
#include <system_error>

#include <fastout/standard_streams.h>

namespace fastout {

int failure(int error_number) noexcept {
  errno = error_number;
  return -error_number;
}

int error_number_of(const std::exception_ptr& error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const std::system_error& e) {
    // fastout throws only errno values (detail::error_category()).
    return e.code().value() > 0 ? e.code().value() : EIO;
  } catch (const std::bad_alloc&) {
    return ENOMEM;
  } catch (...) {
    return EIO;  // nothing else is thrown by the writer; never let it cross into C
  }
}

int call_failed(file& writer, int error_number) noexcept {
  detail::writer_of(writer).set_last_call_error(-error_number);
  return failure(error_number);
}

int standard_handle(file& (*writer)(), fastout_file*& handle) noexcept {
  try {
    // A handle is the writer's hot state (c_handle(), c_api.cpp).
    handle = reinterpret_cast<fastout_file*>(&detail::writer_of(writer()).hot_state());
    return 0;
  } catch (...) {
    return failure(error_number_of(std::current_exception()));
  }
}

}  // namespace fastout
