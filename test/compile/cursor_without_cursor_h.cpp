// SPDX-License-Identifier: MIT
// Includes only the writer's header and uses a cursor: the compiler must
// stop with an error that names <fastout/cursor.h>, not one about an
// incomplete type. test/CMakeLists.txt compiles it once per way of getting
// at a cursor (FASTOUT_TEST_FORM, below; each form alone uses a cursor),
// and again with FASTOUT_TEST_WITH_CURSOR_H, where it includes cursor.h too
// and must compile, so that the error comes from the missing header alone.
#include <fastout/file.h>
#ifdef FASTOUT_TEST_WITH_CURSOR_H
#  include <fastout/cursor.h>
#endif

#include <string_view>

// Naming fastout::cursor needs no header, as long as nothing uses one.
void fill(fastout::cursor& cursor, std::string_view text);

#if FASTOUT_TEST_FORM == 1  // as docs/guide.md writes it
void write_text(fastout::file& out, std::string_view text) {
  fastout::cursor cursor = out.make_cursor();
  for (char c : text) cursor.put(c);
}
#elif FASTOUT_TEST_FORM == 2
void write_text(fastout::file& out, std::string_view text) {
  auto cursor = out.make_cursor();
  cursor.write(text);
}
#elif FASTOUT_TEST_FORM == 3
void write_text(fastout::file& out, std::string_view text) {
  fastout::cursor cursor(out);
  cursor.write(text.data(), text.size());
  cursor.commit();
}
#elif FASTOUT_TEST_FORM == 4  // a cursor someone else made
void fill(fastout::cursor& cursor, std::string_view text) {
  cursor.write(text);
  cursor.flush();
}
#else
#  error "FASTOUT_TEST_FORM must be 1 to 4"
#endif
