// SPDX-License-Identifier: MIT
// What fastout does where a facility it uses is missing (docs/platforms.md
// lists them). Each facility of a platform layer is made to fail through
// the platform table (src/platform/platform_internal.h) with exactly the
// error a kernel, filesystem or C library without it gives, and the writer
// must fall back without giving up a promise: every byte arrives, a
// replacement is still all or nothing, permissions and owners are kept
// where they can be, and nothing is left in the directory. Where this
// machine has the real refusal (/proc has no O_TMPFILE, ramfs no fallocate
// and no RWF_DONTCACHE, a user namespace cannot map an owner), it is tested
// too. What only Apple systems have (F_FULLFSYNC, a cap on each write) is
// made to answer as it does there, through the same table. Tests of the
// linux layer's own facilities are skipped, with the reason, in a build of
// another layer (scripts/test --platform posix). The table itself: whole
// before any static initializer runs; and what the interface says of the
// locale and of errno for printf.
#include <fastout/c_api.h>
#include <fastout/file.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <clocale>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <fcntl.h>
#if !defined(_WIN32)
#  include <locale.h>  // newlocale(), uselocale()
#endif
#include <linux/falloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"

#include "sanitizers.h"
// LeakSanitizer, where the build has it: glibc's newlocale() keeps what it
// made of LOCPATH for the rest of the process, a leak that is glibc's.
#ifdef FASTOUT_TEST_ASAN
#  include <sanitizer/lsan_interface.h>
#endif

namespace {

using fastout::file;
using fastout::file_options;
using fastout::open_mode;
using fastout_test::contains;
using fastout_test::nobody;
using fastout_test::nobody_group;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::temporaries_in;
using fastout_test::write_file;

const std::vector<std::string> none;
const std::string old_content = "the old content\n";

std::string new_content() {
  std::string s;
  for (int i = 0; i < 50000; ++i) s += static_cast<char>('a' + i * 7 % 26);
  return s;
}

using fastout_test::real;
fastout::detail::platform_calls& table() { return fastout::detail::platform; }

void quiet_handler(const fastout::error_report&) noexcept {}

// New files under a name of their own, as where the system or the
// filesystem has no unnamed ones (O_TMPFILE).
void use_named_files() {
  table().create_unnamed = [](int) {
    errno = EOPNOTSUPP;
    return -1;
  };
}

using fastout_test::mode_of;

// What the fakes below refuse, and how often they were asked.
struct refusals {
  int error = 0;          // the errno of the refusal
  int refused = 0;        // calls refused
  int passed = 0;         // calls passed to the real one
  std::string last_name;  // a name seen, for checks
} refusal;

// A replacement of `target` in `dir` with new_content(), written in pieces:
// checks that the target shows its old content (or nothing) until close()
// and the new content after, that nothing is left beside it, and, if
// `named`, that the new file was written under a name of its own, 0600.
void expect_a_whole_replacement(const temp_dir& dir, const std::string& target, bool named,
                                file_options options = {}) {
  const bool existed = std::filesystem::exists(target);
  const std::string before = existed ? read_file(target) : "";
#if !defined(_WIN32)  // no /proc/self/fd to count them in
  const int descriptors = fastout_test::open_descriptors();
#endif
  options.mode = open_mode::replace;
  {
    file f(target, options);
    const std::string data = new_content();
    for (std::size_t i = 0; i < data.size(); i += 3000) f.write(data.substr(i, 3000));
    f.flush();
    const std::vector<std::string> writing = temporaries_in(dir.path());
    if (named) {
      ASSERT_EQ(writing.size(), 1u);
      EXPECT_EQ(mode_of(dir.file(writing[0])), fastout_test::kept_bits(0600));
    } else {
      EXPECT_EQ(writing, none);
    }
    EXPECT_EQ(existed ? read_file(target) : "", before);
    EXPECT_EQ(std::filesystem::exists(target), existed);
    f.close();
  }
  EXPECT_EQ(read_file(target), new_content());
  EXPECT_EQ(temporaries_in(dir.path()), none);
#if !defined(_WIN32)
  EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
#endif
}

// ---------------------------------------------------------------- O_TMPFILE

// A filesystem without O_TMPFILE (NFS, FAT, CIFS: EOPNOTSUPP), a kernel
// before 3.11 (which takes O_TMPFILE for the O_DIRECTORY it includes:
// EISDIR), or EINVAL: the new file is written under a name of its own.
TEST(platform_o_tmpfile, refused_falls_back_to_a_named_file_with_the_same_promises) {
  FASTOUT_SKIP_UNLESS_LINUX("O_TMPFILE");
  for (int error : {EOPNOTSUPP, EISDIR, EINVAL}) {
    SCOPED_TRACE(std::strerror(error));
    temp_dir dir;
    const std::string target = dir.file("target");
    write_file(target, old_content);
    ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
    fastout_test::scoped_platform restore;
    refusal = refusals();
    refusal.error = error;
    table().openat = [](int at, const char* path, int flags, mode_t mode) {
      if ((flags & O_TMPFILE) == O_TMPFILE) {
        ++refusal.refused;
        errno = refusal.error;
        return -1;
      }
      return real().openat(at, path, flags, mode);
    };
    expect_a_whole_replacement(dir, target, true);
    EXPECT_EQ(mode_of(target), 0640u);
    EXPECT_EQ(refusal.refused, 1);
    // A new target, and one destroyed without close().
    std::filesystem::remove(target);
    expect_a_whole_replacement(dir, target, true);
    {
      fastout::error_handler saved = fastout::set_error_handler(quiet_handler);
      {
        file f = fastout::output_file(target, open_mode::replace);
        f.write("abandoned");
      }
      fastout::set_error_handler(saved);
    }
    EXPECT_EQ(read_file(target), new_content());
    EXPECT_EQ(temporaries_in(dir.path()), none);
  }
}

// Any other refusal is an error: the directory cannot take a new file.
TEST(platform_o_tmpfile, another_error_is_not_taken_for_a_missing_facility) {
  FASTOUT_SKIP_UNLESS_LINUX("O_TMPFILE");
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, old_content);
  fastout_test::scoped_platform restore;
  table().openat = [](int at, const char* path, int flags, mode_t mode) {
    if ((flags & O_TMPFILE) == O_TMPFILE) {
      errno = EACCES;
      return -1;
    }
    return real().openat(at, path, flags, mode);
  };
  try {
    file f = fastout::output_file(target, open_mode::replace);
    ADD_FAILURE() << "opened";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EACCES);
    EXPECT_TRUE(contains(e.what(), "cannot open \"" + target + "\" to replace it")) << e.what();
  }
  EXPECT_EQ(read_file(target), old_content);
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"target"});
}

// The real refusal, from a filesystem of this machine without O_TMPFILE.
TEST(platform_o_tmpfile, procfs_refuses_it_with_eopnotsupp) {
  FASTOUT_SKIP_UNLESS_LINUX("O_TMPFILE");
  int fd = ::open("/proc", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  EXPECT_LT(fd, 0);
  EXPECT_EQ(errno, EOPNOTSUPP) << std::strerror(errno);
}

// ---------------------------------------------------------------- /proc

// Without /proc (a chroot, a container without it), an O_TMPFILE file
// could only be linked with AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH
// before Linux 6.10: the writer uses a named file instead, and reads the
// umask with umask() instead of /proc/self/status.
TEST(platform_proc, missing_proc_gives_a_named_file_and_the_umask_from_umask) {
  FASTOUT_SKIP_UNLESS_LINUX(
      "linking an O_TMPFILE file through /proc, and the umask from /proc/self/status");
  temp_dir dir;
  const std::string target = dir.file("target");
  fastout_test::scoped_platform restore;
  refusal = refusals();
  table().fstatat = [](int at, const char* path, struct stat* st, int flags) {
    if (std::strncmp(path, "/proc/", 6) == 0) {
      ++refusal.refused;
      errno = ENOENT;
      return -1;
    }
    return real().fstatat(at, path, st, flags);
  };
  table().openat = [](int at, const char* path, int flags, mode_t mode) {
    if (std::strncmp(path, "/proc/", 6) == 0) {
      ++refusal.refused;
      errno = ENOENT;
      return -1;
    }
    return real().openat(at, path, flags, mode);
  };
  table().umask = [](mode_t mask) {
    ++refusal.passed;
    return real().umask(mask);
  };
  const mode_t saved = static_cast<mode_t>(::umask(027));
  file_options options;
  options.permissions = 0666;
  expect_a_whole_replacement(dir, target, true, options);
  ::umask(saved);
  EXPECT_EQ(mode_of(target), 0640u);
  EXPECT_EQ(refusal.refused, 2);  // the /proc/self/fd probe, /proc/self/status
  EXPECT_EQ(refusal.passed, 2);   // umask() set, then put back
}

// Before Linux 4.7, /proc/self/status has no "Umask:" line.
TEST(platform_proc, a_status_without_the_umask_line_gives_the_umask_from_umask) {
  FASTOUT_SKIP_UNLESS_LINUX(
      "linking an O_TMPFILE file through /proc, and the umask from /proc/self/status");
  temp_dir dir;
  const std::string target = dir.file("target");
  fastout_test::scoped_platform restore;
  refusal = refusals();
  static int status_fd;
  status_fd = -1;
  table().openat = [](int at, const char* path, int flags, mode_t mode) {
    int fd = real().openat(at, path, flags, mode);
    if (std::strcmp(path, "/proc/self/status") == 0) status_fd = fd;
    return fd;
  };
  table().read = [](int fd, void* data, size_t size) -> ssize_t {
    if (fd != status_fd) return real().read(fd, data, size);
    static const char text[] = "Name:\tplatform_test\nState:\tR (running)\nPid:\t1\n";
    if (refusal.refused++ > 0) return 0;
    std::memcpy(data, text, std::min(size, sizeof text - 1));
    return static_cast<ssize_t>(std::min(size, sizeof text - 1));
  };
  table().umask = [](mode_t mask) {
    ++refusal.passed;
    return real().umask(mask);
  };
  const mode_t saved = static_cast<mode_t>(::umask(077));
  expect_a_whole_replacement(dir, target, false);
  ::umask(saved);
  EXPECT_EQ(mode_of(target), 0600u);
  EXPECT_GE(status_fd, 0);
  EXPECT_EQ(refusal.passed, 2);
}

// linkat() of /proc/self/fd/N refused (ENOENT, as without /proc): the
// O_TMPFILE file is linked with AT_EMPTY_PATH. Where that is refused too
// (ENOENT without CAP_DAC_READ_SEARCH before Linux 6.10), the replacement
// fails cleanly: the target as it was, nothing left.
TEST(platform_proc, linkat_through_proc_refused_links_with_at_empty_path) {
  FASTOUT_SKIP_UNLESS_LINUX(
      "linking an O_TMPFILE file through /proc, and the umask from /proc/self/status");
  for (bool empty_path_refused : {false, true}) {
    for (bool existing : {true, false}) {
      SCOPED_TRACE(std::string(existing ? "a target" : "no target") +
                   (empty_path_refused ? ", AT_EMPTY_PATH refused" : ""));
      temp_dir dir;
      const std::string target = dir.file("target");
      if (existing) write_file(target, old_content);
      fastout_test::scoped_platform restore;
      refusal = refusals();
      refusal.error = empty_path_refused ? ENOENT : 0;
      table().linkat = [](int old_dir, const char* old_path, int new_dir, const char* new_path,
                          int flags) {
        if (std::strncmp(old_path, "/proc/", 6) == 0) {
          ++refusal.refused;
          errno = ENOENT;
          return -1;
        }
        if ((flags & AT_EMPTY_PATH) != 0) {
          ++refusal.passed;
          if (refusal.error != 0) {
            errno = refusal.error;
            return -1;
          }
        }
        return real().linkat(old_dir, old_path, new_dir, new_path, flags);
      };
      if (!empty_path_refused) {
        expect_a_whole_replacement(dir, target, false);
        EXPECT_EQ(refusal.refused, 1);
        EXPECT_EQ(refusal.passed, 1);
        continue;
      }
      const int descriptors = fastout_test::open_descriptors();
      file f = fastout::output_file(target, open_mode::replace);
      f.write(new_content());
      try {
        f.close();
        ADD_FAILURE() << "closed";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), ENOENT);
        EXPECT_TRUE(contains(e.what(), "cannot link the new file")) << e.what();
        EXPECT_TRUE(contains(e.what(), "left as it was")) << e.what();
      }
      EXPECT_EQ(existing ? read_file(target) : "", existing ? old_content : "");
      EXPECT_EQ(std::filesystem::exists(target), existing);
      EXPECT_EQ(temporaries_in(dir.path()), none);
      EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
    }
  }
}

// ---------------------------------------------------------------- renameat2

// RENAME_EXCHANGE refused (EINVAL: NFS, FAT, a FUSE filesystem without it;
// ENOSYS: a kernel before 3.15): a rename puts the new file in place.
TEST(platform_rename_exchange, refused_falls_back_to_a_rename) {
  for (int error : {EINVAL, ENOSYS, EOPNOTSUPP}) {
    for (bool named : fastout_test::named_variants()) {
      SCOPED_TRACE(std::string(std::strerror(error)) + (named ? ", named" : ", O_TMPFILE"));
      temp_dir dir;
      const std::string target = dir.file("target");
      write_file(target, old_content);
      ASSERT_EQ(::chmod(target.c_str(), 0604), 0);
      fastout_test::scoped_platform restore;
      refusal = refusals();
      refusal.error = error;
      table().exchange = [](int, const char*, int, const char*) {
        ++refusal.refused;
        errno = refusal.error;
        return -1;
      };
      table().renameat = [](int old_dir, const char* old_path, int new_dir, const char* new_path) {
        ++refusal.passed;
        return real().renameat(old_dir, old_path, new_dir, new_path);
      };
      if (named) use_named_files();
      expect_a_whole_replacement(dir, target, named);
      EXPECT_EQ(mode_of(target), fastout_test::kept_bits(0604));
      EXPECT_EQ(refusal.refused, 1);
      // Windows' rename says EBUSY while the writer's lock is on the new
      // file, and is asked again without it (replace.cpp, put_in_place()).
      EXPECT_EQ(refusal.passed, fastout_test::platform_is("windows") ? 2 : 1);
    }
  }
}

// ---------------------------------------------------------------- pwritev2

// The real refusal of a flag the kernel does not know (as kernels before
// 6.14 say of RWF_DONTCACHE) is EOPNOTSUPP. The fallback itself, for
// EOPNOTSUPP, EINVAL and ENOSYS, is
// durability_faults.page_cache_drop_falls_back_to_plain_writes.
TEST(platform_pwritev2, an_unknown_flag_is_refused_with_eopnotsupp) {
  FASTOUT_SKIP_UNLESS_LINUX("pwritev2(RWF_DONTCACHE)");
  if (fastout_test::pwritev2_is_missing()) {
    // Still checked: fastout meets the same errno.
    std::printf("%s; this EOPNOTSUPP is glibc's answer to ENOSYS, not the kernel's\n",
                fastout_test::pwritev2_missing_note);
  }
  temp_dir dir;
  int fd = ::open(dir.file("f").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  EXPECT_EQ(::pwritev2(fd, &iov, 1, -1, 0x40000000), -1);
  EXPECT_EQ(errno, EOPNOTSUPP) << std::strerror(errno);
  EXPECT_EQ(fastout_test::file_size(fd), 0);
  ::close(fd);
}

// ---------------------------------------------------------------- fallocate

// fallocate() refused (EOPNOTSUPP: a filesystem without it, such as ramfs;
// ENOSYS): the file is written without preallocation, and there is nothing
// to release at close().
TEST(platform_fallocate, refused_writes_without_preallocation) {
  for (int error : {EOPNOTSUPP, ENOSYS}) {
    for (open_mode mode : {open_mode::truncate, open_mode::replace}) {
      SCOPED_TRACE(std::string(std::strerror(error)) +
                   (mode == open_mode::replace ? ", replace" : ", truncate"));
      temp_dir dir;
      const std::string target = dir.file("target");
      write_file(target, old_content);
      fastout_test::scoped_platform restore;
      refusal = refusals();
      refusal.error = error;
      table().reserve = [](int, off_t, off_t) {
        ++refusal.refused;
        errno = refusal.error;
        return -1;
      };
      table().ftruncate = [](int fd, off_t length) {
        ++refusal.passed;
        return real().ftruncate(fd, length);
      };
      file f = fastout::output_file(target, mode, fastout::preallocate = 1 << 20);
      f.write(new_content());
      f.close();
      EXPECT_EQ(read_file(target), new_content());
      EXPECT_EQ(refusal.refused, 1);
      EXPECT_EQ(refusal.passed, 0);
      EXPECT_EQ(temporaries_in(dir.path()), none);
    }
  }
}

// ---------------------------------------------------------------- getrandom

// getrandom() missing (ENOSYS: a kernel before 3.17) or without entropy yet
// (EAGAIN, early at boot): names still differ from one writer to the next,
// and O_EXCL keeps them safe.
TEST(platform_getrandom, missing_still_gives_every_writer_a_name_of_its_own) {
  for (int error : {ENOSYS, EAGAIN}) {
    SCOPED_TRACE(std::strerror(error));
    temp_dir dir;
    fastout_test::scoped_platform restore;
    refusal = refusals();
    refusal.error = error;
    table().random_bytes = [](void*, size_t) {
      ++refusal.refused;
      errno = refusal.error;
      return -1;
    };
    use_named_files();
    std::vector<file> writers;
    for (int i = 0; i < 20; ++i) {
      writers.push_back(
          fastout::output_file(dir.file("t" + std::to_string(i % 2)), open_mode::replace));
      writers.back().write(std::to_string(i));
    }
    EXPECT_EQ(temporaries_in(dir.path()).size(), 20u);
    for (file& f : writers) f.close();
    EXPECT_EQ(read_file(dir.file("t0")), "18");
    EXPECT_EQ(read_file(dir.file("t1")), "19");
    EXPECT_EQ(temporaries_in(dir.path()), none);
    EXPECT_GE(refusal.refused, 20);
  }
}

// ---------------------------------------------------------------- syncing

// fdatasync() and fsync() refused with EINVAL, as from a filesystem that
// cannot sync (on Linux both go to the same file operation, so one is no
// fallback for the other): durability was asked for and cannot be had, so
// close() says so. Nothing is lost: a plain file has all its bytes, and a
// replacement whose sync failed is not put in place.
TEST(platform_sync, a_filesystem_that_cannot_sync_is_an_error) {
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, old_content);
  fastout_test::scoped_platform restore;
  auto refuse = [](int) {
    errno = EINVAL;
    return -1;
  };
  table().fdatasync = refuse;
  table().fsync = refuse;
  {
    file f = fastout::output_file(dir.file("plain"), fastout::sync = true);
    f.write(new_content());
    try {
      f.close();
      ADD_FAILURE() << "closed";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL);
      EXPECT_TRUE(contains(e.what(), "cannot sync")) << e.what();
    }
    EXPECT_EQ(read_file(dir.file("plain")), new_content());
  }
  {
    file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
    f.write(new_content());
    try {
      f.close();
      ADD_FAILURE() << "closed";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL);
      EXPECT_TRUE(contains(e.what(), "left as it was")) << e.what();
    }
    EXPECT_EQ(read_file(target), old_content);
    EXPECT_EQ(temporaries_in(dir.path()), none);
  }
}

// A directory that cannot be synced (EINVAL from a filesystem whose
// directories have no fsync): the new content is in place, and close()
// says that its name may not survive a power loss.
// (The fake tells a directory by the platform's own fstat(): on Windows the
// C runtime's sees none, and the platform's refusal there, ENOTSUP, is
// windows.sync_directory_is_refused_not_claimed.)
TEST(platform_sync, a_directory_that_cannot_sync_is_an_error_after_the_replacement) {
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, old_content);
  fastout_test::scoped_platform restore;
  table().fsync = [](int fd) {
    struct stat st;
    if (real().fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      errno = EINVAL;
      return -1;
    }
    return real().fsync(fd);
  };
  file f = fastout::output_file(target, open_mode::replace, fastout::sync = true,
                                fastout::sync_directory = true);
  f.write(new_content());
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
    EXPECT_TRUE(contains(e.what(), "the new content is in place, but may not survive a power loss"))
        << e.what();
  }
  EXPECT_EQ(read_file(target), new_content());
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// ---------------------------------------------------------------- fchown

// An owner that this process cannot give: EPERM, or EINVAL for an owner
// its user namespace has no id for (a container sees it as 65534 and
// cannot give that id back). The replacement is the process's own, without
// set-user-ID and set-group-ID bits, as for EPERM.
TEST(platform_fchown, an_owner_that_cannot_be_mapped_is_not_kept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the target another owner";
  for (int error : {EPERM, EINVAL}) {
    SCOPED_TRACE(std::strerror(error));
    temp_dir dir;
    const std::string target = dir.file("target");
    write_file(target, old_content);
    ASSERT_EQ(::chown(target.c_str(), nobody, nobody_group), 0);
    ASSERT_EQ(::chmod(target.c_str(), 06750), 0);
    fastout_test::scoped_platform restore;
    refusal = refusals();
    refusal.error = error;
    table().fchown = [](int, uid_t, gid_t) {
      ++refusal.refused;
      errno = refusal.error;
      return -1;
    };
    expect_a_whole_replacement(dir, target, !fastout_test::unnamed_files());
    struct stat st;
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 0u);
    EXPECT_EQ(st.st_mode & 07777, 0750u);
    EXPECT_EQ(refusal.refused, 2);  // owner and group, then the group alone
  }
}

// The real EINVAL: in a user namespace that maps only root, a file owned
// by another user shows as 65534, which fchown() cannot give back. Only a
// single-threaded process may enter a user namespace, which under qemu-user
// (scripts/test --target aarch64) no process is: qemu has threads of its
// own. The test is skipped there, saying so; the native run has it.
TEST(platform_fchown, a_user_namespace_refuses_an_unmapped_owner_for_real) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the target another owner";
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, old_content);
  ASSERT_EQ(::chown(target.c_str(), 12345, 12345), 0);
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  int status = fastout_test::run_in_child([&] {
    if (::unshare(CLONE_NEWUSER) != 0)
      return fastout_test::names_in("/proc/self/task").size() > 1 ? 76 : 77;
    auto write_to = [](const char* path, const char* text) {
      int fd = ::open(path, O_WRONLY | O_CLOEXEC);
      bool ok = fd >= 0 &&
                ::write(fd, text, std::strlen(text)) == static_cast<ssize_t>(std::strlen(text));
      if (fd >= 0) ::close(fd);
      return ok;
    };
    if (!write_to("/proc/self/uid_map", "0 0 1") || !write_to("/proc/self/setgroups", "deny") ||
        !write_to("/proc/self/gid_map", "0 0 1"))
      return 77;
    struct stat st;
    if (::stat(target.c_str(), &st) != 0 || st.st_uid != nobody) return 2;  // unmapped
    int probe = ::open(dir.file("probe").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (probe < 0) return 3;
    const bool refused = ::fchown(probe, nobody, nobody_group) != 0 && errno == EINVAL;
    ::close(probe);
    ::unlink(dir.file("probe").c_str());
    if (!refused) return 4;
    try {
      file f = fastout::output_file(target, open_mode::replace);
      f.write("replaced in a user namespace");
      f.close();
    } catch (const std::system_error&) {
      return 5;
    }
    return 0;
  });
  if (WIFEXITED(status) && WEXITSTATUS(status) == 76)
    GTEST_SKIP() << "no user namespace for a process with more than one thread, and this one has "
                    "others (under qemu-user, the emulator's own)";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "no user namespace here";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status)
      << " (2: owner mapped; 3: no probe file; 4: fchown not refused with EINVAL; 5: not replaced)";
  EXPECT_EQ(read_file(target), "replaced in a user namespace");
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// ---------------------------------------------------------------- locks

// Open file description locks refused (EINVAL: a kernel before 3.15;
// ENOLCK: NFS without a lock manager): a replacement still works, its new
// file unprotected; what a killed writer left cannot be told from a live
// writer's file, so it is left alone.
TEST(platform_locks, missing_locks_leave_what_cannot_be_checked) {
  for (int error : {EINVAL, ENOLCK}) {
    for (bool named : fastout_test::named_variants()) {
      SCOPED_TRACE(std::string(std::strerror(error)) + (named ? ", named" : ", O_TMPFILE"));
      temp_dir dir;
      const std::string target = dir.file("target");
      write_file(target, old_content);
      const std::string left =
          named ? ".fastout-0123456789abcdef-target" : ".fastout-0000000000000000-target";
      write_file(dir.file(left), "left by a killed writer");
      fastout_test::scoped_platform restore;
      refusal = refusals();
      refusal.error = error;
      table().try_lock = [](int, bool) {
        ++refusal.refused;
        errno = refusal.error;
        return -1;
      };
      if (named) use_named_files();
      file f = fastout::output_file(target, open_mode::replace);
      f.write(new_content());
      f.close();
      EXPECT_EQ(read_file(target), new_content());
      EXPECT_EQ(temporaries_in(dir.path()), std::vector<std::string>{left});
      EXPECT_EQ(refusal.refused, 2);  // the writer's lock, and the check of the leftover
    }
  }
}

// ---------------------------------------------------------------- on ramfs

// Runs `body` in a child with a ramfs mounted at `where`, in a mount
// namespace of its own. 77: the machine does not allow it.
int run_on_ramfs(const std::string& where, const std::function<int()>& body) {
  return fastout_test::run_in_child([&] {
    if (::unshare(CLONE_NEWNS) != 0) return 77;
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (::mount("fastout-test", where.c_str(), "ramfs", 0, nullptr) != 0) return 77;
    return body();
  });
}

// ramfs has neither fallocate() nor RWF_DONTCACHE: the real EOPNOTSUPP of
// both, and a durable, preallocated, uncached replacement that still
// writes every byte.
TEST(platform_ramfs, without_fallocate_and_dontcache_every_byte_arrives) {
  FASTOUT_SKIP_UNLESS_LINUX("fallocate and RWF_DONTCACHE on a ramfs");
  if (fastout_test::pwritev2_is_missing()) {
    std::printf("%s; RWF_DONTCACHE's refusal here is not ramfs's\n",
                fastout_test::pwritev2_missing_note);
  }
  temp_dir dir;
  const std::string mount_point = dir.file("ramfs");
  ASSERT_EQ(::mkdir(mount_point.c_str(), 0755), 0);
  const std::string target = mount_point + "/target";
  int status = run_on_ramfs(mount_point, [&] {
    write_file(target, old_content);
    int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return 2;
    const bool no_fallocate =
        ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) != 0 && errno == EOPNOTSUPP;
    char byte = 'x';
    struct iovec iov = {&byte, 1};
    const bool no_dontcache = ::pwritev2(fd, &iov, 1, -1, 0x80) != 0 && errno == EOPNOTSUPP;
    ::close(fd);
    if (!no_fallocate) return 3;
    if (!no_dontcache) return 4;
    file f = fastout::output_file(target, open_mode::replace, fastout::preallocate = 1 << 20,
                                  fastout::page_cache::drop, fastout::sync = true,
                                  fastout::sync_directory = true, fastout::buffer_size = 4096);
    const std::string data = new_content();
    for (std::size_t i = 0; i < data.size(); i += 1000) f.write(data.substr(i, 1000));
    if (f.drops_page_cache()) return 5;
    f.close();
    if (read_file(target) != data) return 6;
    if (!temporaries_in(mount_point).empty()) return 7;
    return 0;
  });
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a ramfs here";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status)
      << " (2: no file; 3: fallocate not refused; 4: RWF_DONTCACHE not refused; 5: still "
         "dropping; 6: wrong bytes; 7: left a file)";
}

// ---------------------------------------------------------------- sync_file_range

// Counts sync_file_range() and refuses it with refusal.error; counts the
// syncs and makes them for real.
int refusing_writeback(int, off_t, off_t) {
  ++refusal.refused;
  errno = refusal.error;
  return -1;
}
int counting_fdatasync(int fd) {
  ++refusal.passed;
  return real().fdatasync(fd);
}
int counting_fsync(int fd) {
  ++refusal.passed;
  return real().fsync(fd);
}

// sync_file_range() refused as a kernel without it (ENOSYS, or a seccomp
// filter), a pipe (ESPIPE) or a file that cannot take it (EINVAL) refuses
// it: the writer asks once, stops asking, and syncs everything at close()
// as it did before writeback while writing. Nothing is reported: the sync
// at close() is what durability rests on. A plain file and a replacement,
// each 20 MiB, so that two ranges would be started.
TEST(platform_sync_file_range, refused_falls_back_to_the_sync_at_close) {
  std::string data;
  for (int i = 0; i < 20; ++i) data.append(std::size_t{1} << 20, static_cast<char>('a' + i));
  for (int error : {ENOSYS, ESPIPE, EINVAL}) {
    SCOPED_TRACE(std::strerror(error));
    temp_dir dir;
    fastout_test::scoped_platform restore;
    table().start_writeback = refusing_writeback;
    table().fdatasync = counting_fdatasync;
    table().fsync = counting_fsync;
    refusal = refusals();
    refusal.error = error;
    {
      file f = fastout::output_file(dir.file("plain"), fastout::sync = true);
      for (std::size_t i = 0; i < data.size(); i += 100000) f.write(data.substr(i, 100000));
      f.close();
    }
    EXPECT_EQ(refusal.refused, 1);
    EXPECT_EQ(refusal.passed, 1);  // the fdatasync at close()
    EXPECT_EQ(read_file(dir.file("plain")), data);

    refusal = refusals();
    refusal.error = error;
    const std::string target = dir.file("target");
    write_file(target, old_content);
    {
      file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
      for (std::size_t i = 0; i < data.size(); i += 100000) f.write(data.substr(i, 100000));
      EXPECT_EQ(read_file(target), old_content);
      f.close();
    }
    EXPECT_EQ(refusal.refused, 1);
    EXPECT_EQ(refusal.passed, 1);  // the fsync of the new file
    EXPECT_EQ(read_file(target), data);
    EXPECT_EQ(temporaries_in(dir.path()), none);
  }
}

// Any other error of sync_file_range() is no missing facility: EIO is a
// writeback that failed, final and reported (durable_test.cpp has the rest).
TEST(platform_sync_file_range, another_error_is_not_taken_for_a_missing_facility) {
  temp_dir dir;
  fastout_test::scoped_platform restore;
  table().start_writeback = refusing_writeback;
  table().fdatasync = counting_fdatasync;
  refusal = refusals();
  refusal.error = EIO;
  file f = fastout::output_file(dir.file("plain"), fastout::sync = true);
  const std::string piece(std::size_t{1} << 20, 'p');
  EXPECT_THROW(
      {
        for (int i = 0; i < 9; ++i) f.write(piece);
      },
      std::system_error);
  EXPECT_THROW(f.close(), std::system_error);
  EXPECT_EQ(refusal.refused, 1);
  EXPECT_EQ(refusal.passed, 0);  // no sync after a failed writeback
}

// The real refusal: sync_file_range() on a pipe is ESPIPE, as the fallback
// above assumes.
TEST(platform_sync_file_range, a_pipe_refuses_it_with_espipe) {
  FASTOUT_SKIP_UNLESS_LINUX("sync_file_range");
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  EXPECT_EQ(::sync_file_range(ends[1], 0, 4096, SYNC_FILE_RANGE_WRITE), -1);
  EXPECT_EQ(errno, ESPIPE) << std::strerror(errno);
  ::close(ends[0]);
  ::close(ends[1]);
}

// ---------------------------------------------------------------- Apple's full sync

namespace full_sync {
int full_fsyncs = 0;
int plain_syncs = 0;
int answer = 0;  // full_fsync()'s errno; 0 succeeds
int full_fsync(int) {
  ++full_fsyncs;
  if (answer == 0) return 0;
  errno = answer;
  return -1;
}
int fsync(int fd) {
  ++plain_syncs;
  return real().fsync(fd);
}
int fdatasync(int fd) {
  ++plain_syncs;
  return real().fdatasync(fd);
}
void install(int full_fsync_answer) {
  full_fsyncs = plain_syncs = 0;
  answer = full_fsync_answer;
  table().full_fsync = full_fsync;
  table().fsync = fsync;
  table().fdatasync = fdatasync;
}
}  // namespace full_sync

// On Apple systems fsync() leaves the data in the drive's cache, and
// fcntl(F_FULLFSYNC) does not: a sync asks for it first (the table's
// full_fsync, which answers ENOTSUP on every other system), and then needs
// no fsync() of its own. Made to succeed here as it does on macOS.
TEST(platform_full_fsync, is_the_sync_where_the_system_has_it) {
  temp_dir dir;
  fastout_test::scoped_platform restore;
  full_sync::install(0);
  {
    file f = fastout::output_file(dir.file("plain"), fastout::sync = true);
    f.write(new_content());
    f.sync();
    f.close();
  }
  EXPECT_EQ(full_sync::full_fsyncs, 2);  // sync(), and close()
  EXPECT_EQ(full_sync::plain_syncs, 0);
  full_sync::install(0);
  const std::string target = dir.file("target");
  write_file(target, old_content);
  expect_a_whole_replacement(dir, target, !fastout_test::unnamed_files(), [] {
    file_options o;
    o.sync = true;
    return o;
  }());
  EXPECT_EQ(full_sync::full_fsyncs, 1);
  EXPECT_EQ(full_sync::plain_syncs, 0);
}

// A filesystem that refuses F_FULLFSYNC (SMB, some FUSE ones: ENOTSUP,
// EINVAL or ENOTTY): fsync() instead, as SQLite and libuv do; every other
// system says ENOTSUP at once.
TEST(platform_full_fsync, refused_falls_back_to_fsync) {
  for (int error : {ENOTSUP, EINVAL, ENOTTY}) {
    SCOPED_TRACE(std::strerror(error));
    temp_dir dir;
    fastout_test::scoped_platform restore;
    full_sync::install(error);
    {
      file f = fastout::output_file(dir.file("plain"), fastout::sync = true);
      f.write(new_content());
      f.close();
    }
    EXPECT_EQ(full_sync::full_fsyncs, 1);
    EXPECT_EQ(full_sync::plain_syncs, 1);
    EXPECT_EQ(read_file(dir.file("plain")), new_content());
  }
}

// Any other failure of the full sync is the sync's failure: final, and
// nothing is put in place.
TEST(platform_full_fsync, a_failure_is_the_syncs_failure) {
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, old_content);
  fastout_test::scoped_platform restore;
  full_sync::install(EIO);
  file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
  f.write(new_content());
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_TRUE(contains(e.what(), "cannot sync the new content")) << e.what();
  }
  EXPECT_EQ(full_sync::plain_syncs, 0);
  EXPECT_EQ(read_file(target), old_content);
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// ---------------------------------------------------------------- the cap on a write

namespace capped {
std::vector<std::size_t> sizes;  // what each call asked for
std::size_t most = SIZE_MAX;     // what each call writes at most: short writes
ssize_t write(int fd, const void* data, size_t size) {
  sizes.push_back(size);
  return real().write(fd, data, std::min(size, most));
}
ssize_t writev(int fd, const struct iovec* iov, int count) {
  std::size_t size = 0;
  for (int i = 0; i < count; ++i) size += iov[i].iov_len;
  sizes.push_back(size);
  if (size > most) {
    // The first `most` bytes of the segments.
    std::vector<struct iovec> part(iov, iov + count);
    std::size_t left = most;
    for (struct iovec& segment : part) {
      segment.iov_len = std::min(segment.iov_len, left);
      left -= segment.iov_len;
    }
    return real().writev(fd, part.data(), count);
  }
  return real().writev(fd, iov, count);
}

// Writes `data` in pieces of 3, 30,000, 0, 5 and the rest with write_all(),
// each call capped at `cap`: true if all of it reached the file.
bool write_pieces(const std::string& path, const std::string& data, std::size_t cap,
                  fastout::detail::write_counts& counts) {
  sizes.clear();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  struct iovec iov[5] = {{const_cast<char*>(data.data()), 3},
                         {const_cast<char*>(data.data() + 3), 30000},
                         {const_cast<char*>(data.data() + 30003), 0},
                         {const_cast<char*>(data.data() + 30003), 5},
                         {const_cast<char*>(data.data() + 30008), data.size() - 30008}};
  bool uncached = false;
  const int error_number = fastout::detail::write_all(fd, iov, 5, uncached, counts, cap);
  ::close(fd);
  return error_number == 0 && read_file(path) == data;
}
}  // namespace capped

// Each write() asks for at most the platform's cap (macOS refuses more than
// INT_MAX bytes with EINVAL; fastout stays at INT_MAX - 1 there), and every
// call but the last asks for the whole cap: pieces go together, and a piece
// that does not fit whole fills the call up to the cap (as the kernel would
// cut one call of everything), so there are no more calls than the cap
// forces. Tested with a small cap through the loop every platform uses.
TEST(platform_write_cap, every_call_but_the_last_asks_for_the_whole_cap) {
  EXPECT_LE(fastout::detail::max_write_size, static_cast<std::size_t>(INT_MAX) - 1);
  temp_dir dir;
  fastout_test::scoped_platform restore;
  table().write = capped::write;
  table().writev = capped::writev;
  const std::string data = new_content();  // 50,000 bytes
  for (std::size_t cap : {1u, 7u, 1000u, 4096u, 65536u}) {
    SCOPED_TRACE("cap " + std::to_string(cap));
    capped::most = SIZE_MAX;
    fastout::detail::write_counts counts;
    EXPECT_TRUE(capped::write_pieces(dir.file("capped"), data, cap, counts));
    std::vector<std::size_t> expected((data.size() + cap - 1) / cap, cap);
    expected.back() = data.size() - (expected.size() - 1) * cap;
    EXPECT_EQ(capped::sizes, expected);
    EXPECT_EQ(counts.calls, capped::sizes.size());
    EXPECT_EQ(counts.bytes, data.size());
  }
}

// Short writes under the cap: each call asks for the cap, or all that is
// left, from where the last one stopped, across the pieces.
TEST(platform_write_cap, short_writes_continue_where_they_stopped) {
  temp_dir dir;
  fastout_test::scoped_platform restore;
  table().write = capped::write;
  table().writev = capped::writev;
  const std::string data = new_content();
  for (std::size_t most : {1u, 3u, 999u}) {
    for (std::size_t cap : {7u, 1000u, 4096u}) {
      SCOPED_TRACE("cap " + std::to_string(cap) + ", at most " + std::to_string(most));
      capped::most = most;
      fastout::detail::write_counts counts;
      EXPECT_TRUE(capped::write_pieces(dir.file("short"), data, cap, counts));
      std::vector<std::size_t> expected;
      for (std::size_t left = data.size(); left > 0; left -= std::min({left, cap, most}))
        expected.push_back(std::min(left, cap));
      EXPECT_EQ(capped::sizes, expected);
      EXPECT_EQ(counts.bytes, data.size());
    }
  }
  capped::most = SIZE_MAX;
}

// ---------------------------------------------------------------- the table

// Read by a static object of this test program. Its object files come
// before the library on the link line, so its dynamic initializers run
// before any of the library's: had the table a dynamic initializer, it
// would still be empty here, and a writer opened by a static object would
// call through null pointers.
struct table_at_static_initialization {
  bool platform_whole = fastout::detail::every_entry_filled(fastout::detail::platform);
  bool real_platform_whole = fastout::detail::every_entry_filled(fastout::detail::real_platform);
  bool writes_to_the_real_call = fastout::detail::platform.write == real().write;
};
const table_at_static_initialization at_static_initialization;

TEST(platform_table, is_whole_before_any_static_initializer_runs) {
  EXPECT_TRUE(at_static_initialization.platform_whole);
  EXPECT_TRUE(at_static_initialization.real_platform_whole);
  EXPECT_TRUE(at_static_initialization.writes_to_the_real_call);
  EXPECT_TRUE(fastout::detail::every_entry_filled(fastout::detail::real_platform));
}

// The check the tables are held to at compile time fails on a table with
// an entry left empty, whichever it is.
TEST(platform_table, a_table_with_an_empty_entry_is_not_whole) {
  fastout::detail::platform_calls calls = fastout::detail::real_platform;
  EXPECT_TRUE(fastout::detail::every_entry_filled(calls));
  calls.open_write_stream = nullptr;
  EXPECT_FALSE(fastout::detail::every_entry_filled(calls));
  calls = fastout::detail::real_platform;
  calls.fdatasync = nullptr;
  EXPECT_FALSE(fastout::detail::every_entry_filled(calls));
}

// ---------------------------------------------------------------- the locale and errno for printf

TEST(platform_locale, the_c_locale_has_a_point_no_grouping_and_ascii_digits) {
  EXPECT_STREQ(fastout::detail::decimal_point(), ".");
  const fastout::detail::digit_grouping grouping = fastout::detail::thousands_grouping();
  ASSERT_NE(grouping.separator, nullptr);
  ASSERT_NE(grouping.sizes, nullptr);
  EXPECT_STREQ(grouping.separator, "");
  EXPECT_TRUE(grouping.sizes[0] == '\0' || grouping.sizes[0] == CHAR_MAX) << +grouping.sizes[0];
  EXPECT_TRUE(fastout::detail::outdigits_are_ascii());
}

// A locale with a decimal comma and groups of three, in force for this
// thread only (uselocale()), as the C library's printf() reads it: the
// platform answers for this thread, and the process's locale stays "C".
// The locale is compiled here from a few lines (its LC_NUMERIC only), in
// milliseconds; on Windows the runtime's own German locale.
TEST(platform_locale, a_threads_locale_gives_its_decimal_comma_and_grouping) {
#if defined(_WIN32)
  if (std::setlocale(LC_NUMERIC, "German_Germany.1252") == nullptr &&
      std::setlocale(LC_NUMERIC, "de-DE") == nullptr)
    GTEST_SKIP() << "the C runtime has no German locale here";
  const std::string point = fastout::detail::decimal_point();
  const fastout::detail::digit_grouping grouping = fastout::detail::thousands_grouping();
  const std::string separator = grouping.separator, sizes = grouping.sizes;
  std::setlocale(LC_NUMERIC, "C");
#else
  temp_dir dir;
  write_file(dir.file("numbers.src"),
             "LC_NUMERIC\ndecimal_point \",\"\nthousands_sep \".\"\ngrouping 3;3\n"
             "END LC_NUMERIC\n");
  // localedef warns of the categories the source leaves out (-c: and
  // writes the locale all the same).
  const std::string command = "localedef -c -i '" + dir.file("numbers.src") +
                              "' -f ANSI_X3.4-1968 '" + dir.file("xx_NUM") + "' >/dev/null 2>&1";
  if (std::system(command.c_str()) == -1 || !std::filesystem::exists(dir.file("xx_NUM")))
    GTEST_SKIP() << "localedef cannot compile a locale here";
  ::setenv("LOCPATH", dir.path().c_str(), 1);
  locale_t numbers;
  {
    // glibc keeps the parsed LOCPATH (argz_add_sep) for good: not a leak of
    // ours, and the only allocation LeakSanitizer is told to pass over.
#  ifdef FASTOUT_TEST_ASAN
    __lsan::ScopedDisabler glibc_keeps_its_locale_path;
#  endif
    numbers = ::newlocale(LC_NUMERIC_MASK, "xx_NUM", static_cast<locale_t>(nullptr));
  }
  ::unsetenv("LOCPATH");
  if (numbers == static_cast<locale_t>(nullptr))
    GTEST_SKIP() << "the compiled locale does not load: " << std::strerror(errno);
  const locale_t before = ::uselocale(numbers);
  const std::string point = fastout::detail::decimal_point();
  const fastout::detail::digit_grouping grouping = fastout::detail::thousands_grouping();
  const std::string separator = grouping.separator, sizes = grouping.sizes;
  ::uselocale(before);
  ::freelocale(numbers);
#endif
  EXPECT_EQ(point, ",");
  EXPECT_EQ(separator, ".");
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes[0], 3);
  EXPECT_STREQ(fastout::detail::decimal_point(), ".");  // this thread's again
  EXPECT_STREQ(fastout::detail::thousands_grouping().separator, "");
}

// %m's text is the C library's, in the locale's language: in the "C"
// locale, strerror()'s.
TEST(platform_errno, the_text_for_m_is_the_c_librarys) {
  for (int error_number : {ENOENT, ENOSPC, EINVAL, EILSEQ}) {
    char buffer[256];
    const std::string expected = std::strerror(error_number);
    const char* text = fastout::detail::localized_error_text(error_number, buffer, sizeof buffer);
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(text, expected);
  }
  char buffer[256];
  EXPECT_NE(fastout::detail::localized_error_text(99999, buffer, sizeof buffer), nullptr);
}

// %#m's names are glibc's on every platform, and none for a number that
// names no error.
TEST(platform_errno, the_names_for_m_are_glibcs) {
  EXPECT_STREQ(fastout::detail::error_symbol(0), "0");
  EXPECT_STREQ(fastout::detail::error_symbol(ENOENT), "ENOENT");
  EXPECT_STREQ(fastout::detail::error_symbol(ENOSPC), "ENOSPC");
  EXPECT_STREQ(fastout::detail::error_symbol(EAGAIN), "EAGAIN");
  EXPECT_STREQ(fastout::detail::error_symbol(EDEADLK), "EDEADLK");
  EXPECT_STREQ(fastout::detail::error_symbol(EOPNOTSUPP), "EOPNOTSUPP");
  EXPECT_STREQ(fastout::detail::error_symbol(EILSEQ), "EILSEQ");
  EXPECT_EQ(fastout::detail::error_symbol(99999), nullptr);
  EXPECT_EQ(fastout::detail::error_symbol(-1), nullptr);
  EXPECT_STREQ(fastout::detail::common_error_symbol(ENOSPC), "ENOSPC");
  EXPECT_EQ(fastout::detail::common_error_symbol(99999), nullptr);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
// The names the posix and windows layers give are glibc's own, number for
// number: every errno value glibc names, and none it does not.
TEST(platform_errno, the_common_names_are_strerrorname_nps) {
  int named = 0;
  for (int error_number = -10; error_number < 5000; ++error_number) {
    const char* glibcs = ::strerrorname_np(error_number);
    const char* ours = fastout::detail::common_error_symbol(error_number);
    if (glibcs == nullptr) {
      EXPECT_EQ(ours, nullptr) << error_number << " is " << ours;
      continue;
    }
    ++named;
    ASSERT_NE(ours, nullptr) << error_number << " is " << glibcs;
    EXPECT_STREQ(ours, glibcs) << error_number;
  }
  EXPECT_GT(named, 100);
}
#endif

}  // namespace
