// SPDX-License-Identifier: MIT
// fastout's printf engine, behind fastout_printf() and fastout_vprintf()
// (src/doors/c_api.cpp). Internal: not installed.
#ifndef FASTOUT_PRINTF_INTERNAL_H_
#define FASTOUT_PRINTF_INTERNAL_H_

#include <cstdarg>

namespace fastout {
class file;
namespace detail {

/// Appends to `writer` exactly the bytes glibc's vfprintf(format, args)
/// would write, and returns their number.
///
/// The common conversions (integers, %f %e %g, %s, %c, %p, %n, %%) are laid
/// out here with {fmt} making the digits; everything else goes to glibc
/// (snprintf per directive, or vsnprintf/vfprintf for the whole call when the
/// format has positional arguments or anything this parser does not know).
///
/// The text goes into the writer's free space; a text that fits in the
/// buffer is never split across a flush (older text is sent to make room),
/// and a text larger than the whole buffer streams to the file. Returns a
/// negative errno when glibc's would fail (EINVAL, EILSEQ, EOVERFLOW): none
/// of the text is then added unless part of it had already been sent. Throws
/// std::system_error for a write error, as the writer's own calls do.
/// `args` is consumed as vfprintf consumes it.
int vprintf_to(file& writer, const char* format, std::va_list args);

}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_PRINTF_INTERNAL_H_
