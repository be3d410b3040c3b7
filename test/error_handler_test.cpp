// SPDX-License-Identifier: MIT
// The default error handler makes its system calls through the table, as
// the rest of the library does: its line to stderr and its look at the
// path of a replacement that was not put in place.
#include <fastout/file.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout_test::scoped_platform;

// What the fake write() was given for descriptor 2, and how often.
std::string written_to_stderr;
int stderr_writes = 0;

ssize_t record_stderr_write(int fd, const void* data, size_t size) {
  if (fd != STDERR_FILENO) return fastout::detail::real_platform.write(fd, data, size);
  ++stderr_writes;
  written_to_stderr.append(static_cast<const char*>(data), size);
  return static_cast<ssize_t>(size);
}

// The errno the fake fstatat() gives for the path the handler looks at.
int fstatat_error = 0;
int paths_looked_at = 0;

int fake_fstatat(int dir, const char* path, struct stat* st, int flags) {
  ++paths_looked_at;
  if (fstatat_error != 0) {
    errno = fstatat_error;
    return -1;
  }
  return fastout::detail::real_platform.fstatat(dir, path, st, flags);
}

void reset_fakes() {
  written_to_stderr.clear();
  stderr_writes = 0;
  fstatat_error = 0;
  paths_looked_at = 0;
}

fastout::error_report report_for(const char* path, int error_number) {
  return fastout::error_report{path, fastout_test::system_error_code(error_number), 5, false};
}

}  // namespace

TEST(default_error_handler, writes_its_line_through_the_platform_calls) {
  reset_fakes();
  scoped_platform restore;
  fastout::detail::platform.write = record_stderr_write;
  fastout::default_error_handler(report_for("lost.txt", ENOSPC));
  EXPECT_EQ(stderr_writes, 1);
  EXPECT_EQ(written_to_stderr,
            "fastout: lost 5 bytes writing \"lost.txt\": No space left on device\n");
}

TEST(default_error_handler, looks_at_a_path_that_was_not_replaced_through_the_table) {
  fastout_test::temp_dir dir;
  const std::string path = dir.file("target");
  fastout_test::write_file(path, "old");  // it exists; the fake says it does not
  reset_fakes();
  scoped_platform restore;
  fastout::detail::platform.write = record_stderr_write;
  fastout::detail::platform.fstatat = fake_fstatat;
  fastout::error_report report = report_for(path.c_str(), ECANCELED);
  report.not_replaced = true;

  fstatat_error = ENOENT;
  fastout::default_error_handler(report);
  EXPECT_EQ(paths_looked_at, 1);
  EXPECT_TRUE(fastout_test::contains(written_to_stderr, "did not exist, and still does not"))
      << written_to_stderr;

  written_to_stderr.clear();
  fstatat_error = 0;
  fastout::default_error_handler(report);
  EXPECT_EQ(paths_looked_at, 2);
  EXPECT_TRUE(fastout_test::contains(written_to_stderr, "is as it was")) << written_to_stderr;
}

TEST(default_error_handler, leaves_errno_as_it_found_it) {
  reset_fakes();
  scoped_platform restore;
  fastout::detail::platform.write = record_stderr_write;
  fastout::detail::platform.fstatat = fake_fstatat;
  fstatat_error = ENOENT;
  fastout::error_report report = report_for("/nowhere/target", ECANCELED);
  report.not_replaced = true;
  errno = EDOM;
  fastout::default_error_handler(report);
  EXPECT_EQ(errno, EDOM);
}
