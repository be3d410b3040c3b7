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

#if defined(FASTOUT_PRIVATE_CXX_RUNTIME) && defined(__GLIBCXX__)
// libfastout-c's C++ runtime is its own (static, private), so what it
// carries is the C program's to pay for. libstdc++'s default terminate
// handler, __gnu_cxx::__verbose_terminate_handler, demangles the type of
// the exception it reports, and with it comes the whole demangler: 51 KB of
// a C program's text and a page of tables the loader relocates at every
// start (docs/c-api.md, "What each way costs"). This definition takes the
// place of libstdc++'s (defined here, in the file every C call links, the
// linker never takes its own from libstdc++.a) and says the same: the
// exception's type, its what(), then abort(). The type is demangled when a
// demangler is in the process anyway (a shared libstdc++ loaded by a C++
// program: the weak reference finds it), and given as the compiler names it
// otherwise ('St13runtime_error' for std::runtime_error). Nothing in
// libfastout-c terminates on purpose: every exception stops at the C API
// (error_number_of() above); this is for a defect's last words.
#  include <cstdio>
#  include <cstdlib>
#  include <typeinfo>

// The two of the C++ ABI's functions this uses (<cxxabi.h> declares them,
// but the demangler there not weak): the type of the exception being
// handled, and the demangler -- a weak reference, null unless a demangler
// is linked or loaded anyway.
extern "C" std::type_info* __cxa_current_exception_type() noexcept;
extern "C" char* __cxa_demangle(const char* name, char* buffer, std::size_t* length, int* status)
    __attribute__((weak));

namespace __gnu_cxx {

void __verbose_terminate_handler() {
  static bool terminating = false;
  if (terminating) {
    std::fputs("terminate called recursively\n", stderr);
    std::abort();
  }
  terminating = true;
  const std::type_info* type = __cxa_current_exception_type();
  if (type == nullptr) {
    std::fputs("terminate called without an active exception\n", stderr);
    std::abort();
  }
  const char* name = type->name();
  if (*name == '*') ++name;  // a type_info's mark for a type of internal linkage
  int status = -1;
  char* demangled =
      __cxa_demangle != nullptr ? __cxa_demangle(name, nullptr, nullptr, &status) : nullptr;
  std::fputs("terminate called after throwing an instance of '", stderr);
  std::fputs(status == 0 && demangled != nullptr ? demangled : name, stderr);
  std::fputs("'\n", stderr);
  std::free(demangled);
  try {
    throw;
  } catch (const std::exception& e) {
    std::fputs("  what():  ", stderr);
    std::fputs(e.what(), stderr);
    std::fputs("\n", stderr);
  } catch (...) {
  }
  std::abort();
}

}  // namespace __gnu_cxx
#endif
