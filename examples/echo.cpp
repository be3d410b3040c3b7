// SPDX-License-Identifier: MIT
// echo, as GNU coreutils' echo, written with fastout's standard output.
//
//   echo [-neE]... [STRING]...
//
// Writes the STRINGs separated by spaces, then a newline.
//
//   -n   no newline at the end
//   -e   interpret backslash escapes: \\ \a \b \e \f \n \r \t \v,
//        \0NNN (octal, up to three digits after the 0), \NNN (one to three
//        octal digits), \xHH (one or two hex digits), and \c (stop: nothing
//        more is written, not even the newline)
//   -E   do not interpret them (the default)
//
// As GNU echo: an argument is an option only if every letter after its '-'
// is n, e or E ("-nx" and "-" are text), and options end at the first text.
// With POSIXLY_CORRECT in the environment, escapes are always interpreted
// and options are only read if the first argument is exactly "-n". Unlike
// GNU echo, --help and --version are text. The exit status is 0, or 1 if
// the output could not be written.
//
// The whole output goes into fastout::standard_output()'s buffer and out in
// one write() when the process exits (or, on a terminal, at every newline).
// A write error is left to fastout, as GNU echo leaves it to coreutils'
// close_stdout(): standard output reports it at exit, in one line naming the
// cause, and the exit status becomes 1.
#include <fastout/fastout.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace {

bool is_octal(char c) { return c >= '0' && c <= '7'; }

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

unsigned hex_value(char c) {
  if (c >= 'a') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A') return static_cast<unsigned>(c - 'A' + 10);
  return static_cast<unsigned>(c - '0');
}

// Writes `s` with its backslash escapes interpreted, as GNU echo -e: one
// char at a time, into the writer's buffer. Returns false at \c, after
// which nothing more may be written.
bool write_escaped(fastout::file& out, const char* s) {
  while (char c = *s++) {
    if (c != '\\' || *s == '\0') {  // a backslash at the very end is itself
      out.put(c);
      continue;
    }
    // Octal and hex escapes wrap around in 8 bits, as GNU echo's: \400 is 0.
    unsigned value;
    switch (char e = *s++) {
      case 'a': value = '\a'; break;
      case 'b': value = '\b'; break;
      case 'c': return false;
      case 'e': value = 0x1B; break;
      case 'f': value = '\f'; break;
      case 'n': value = '\n'; break;
      case 'r': value = '\r'; break;
      case 't': value = '\t'; break;
      case 'v': value = '\v'; break;
      case '\\': value = '\\'; break;
      case 'x':
        if (!is_hex(*s)) {  // not an escape: the backslash and the x
          out.put('\\');
          value = 'x';
          break;
        }
        value = hex_value(*s++);
        if (is_hex(*s)) value = value * 16 + hex_value(*s++);
        break;
      case '0':
        // \0 and up to three more octal digits.
        value = 0;
        for (int digits = 0; digits < 3 && is_octal(*s); ++digits)
          value = value * 8 + static_cast<unsigned>(*s++ - '0');
        break;
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        value = static_cast<unsigned>(e - '0');
        for (int digits = 1; digits < 3 && is_octal(*s); ++digits)
          value = value * 8 + static_cast<unsigned>(*s++ - '0');
        break;
      default:  // not an escape: the backslash and the char
        out.put('\\');
        value = static_cast<unsigned char>(e);
        break;
    }
    out.put(static_cast<char>(value & 0xFF));
  }
  return true;
}

// An argument made of '-' and only the letters n, e and E.
bool is_option(const char* arg) {
  if (arg[0] != '-' || arg[1] == '\0') return false;
  return std::strspn(arg + 1, "neE") == std::strlen(arg + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const bool posixly_correct = std::getenv("POSIXLY_CORRECT") != nullptr;
  bool newline = true;
  bool escapes = posixly_correct;
  int first = 1;
  if (!posixly_correct || (argc > 1 && std::strcmp(argv[1], "-n") == 0)) {
    for (; first < argc && is_option(argv[first]); ++first) {
      for (const char* letter = argv[first] + 1; *letter != '\0'; ++letter) {
        if (*letter == 'n') newline = false;
        if (*letter == 'e') escapes = true;
        if (*letter == 'E') escapes = posixly_correct;
      }
    }
  }

  try {
    fastout::file& out = fastout::standard_output();
    bool stopped = false;
    for (int i = first; i < argc && !stopped; ++i) {
      if (i > first) out.put(' ');
      if (escapes) {
        stopped = !write_escaped(out, argv[i]);
      } else {
        out.write(argv[i], std::strlen(argv[i]));
      }
    }
    if (newline && !stopped) out.put('\n');
    // Nothing to check here: a write error (a full disk, a closed pipe with
    // SIGPIPE ignored) is not thrown, and the exit handler reports it.
  } catch (const std::system_error& e) {
    // Only standard_output() can throw, if its buffer cannot be allocated.
    std::fprintf(stderr, "echo: %s\n", e.what());
    return 1;
  }
  return 0;
}
