// SPDX-License-Identifier: MIT
// The file a fuzz target's writers write to, emptied before each input and
// read back after: in memory (memfd_create) on Linux, so that a million
// inputs never touch a disk; an unlinked temporary file elsewhere.
#ifndef FASTOUT_FUZZ_SCRATCH_FILE_H_
#define FASTOUT_FUZZ_SCRATCH_FILE_H_

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#  include <sys/mman.h>
#endif

namespace fastout_fuzz {

class scratch_file {
 public:
  scratch_file() {
#if defined(__linux__)
    fd_ = memfd_create("fastout-fuzz", MFD_CLOEXEC);
#else
    char name[] = "/tmp/fastout-fuzz-XXXXXX";
    fd_ = mkstemp(name);
    if (fd_ >= 0) unlink(name);
#endif
    if (fd_ < 0) die("cannot make the scratch file");
  }
  scratch_file(const scratch_file&) = delete;
  scratch_file& operator=(const scratch_file&) = delete;
  ~scratch_file() { close(fd_); }

  int fd() const noexcept { return fd_; }

  // Empty, and the next write at offset 0.
  void reset() {
    if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0)
      die("cannot empty the scratch file");
  }

  std::string contents() const {
    struct stat st;
    if (fstat(fd_, &st) != 0) die("cannot stat the scratch file");
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = pread(fd_, &bytes[done], bytes.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die("cannot read the scratch file");
      done += static_cast<std::size_t>(n);
    }
    return bytes;
  }

 private:
  [[noreturn]] static void die(const char* what) {
    std::fprintf(stderr, "fastout fuzz: %s: %s\n", what, std::strerror(errno));
    std::exit(2);
  }

  int fd_ = -1;
};

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_SCRATCH_FILE_H_
