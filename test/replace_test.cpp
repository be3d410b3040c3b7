// SPDX-License-Identifier: MIT
// Tests of open_mode::replace and the durability options on real files:
// what the target shows before and after a commit, what a writer that is
// destroyed, canceled or fails leaves behind, permissions and owners,
// symbolic links, targets that cannot be replaced, and real failures (a
// full filesystem, a read-only directory and filesystem, a target that
// becomes a directory). A failure at every single step, through the
// system-call layer, is in replace_faults_test.cpp; killed processes in
// replace_crash_test.cpp.
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "test_util.h"

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

using fastout_test::mode_of;
using fastout_test::scoped_umask;
using fastout_test::system_error_code;

struct stat status_of(const std::string& path) {
  struct stat st = {};
  if (::lstat(path.c_str(), &st) != 0) st.st_mode = 0;
  return st;
}

// What the error handler hears.
std::vector<fastout::error_report> reports;
std::vector<std::string> report_paths;
void recording_handler(const fastout::error_report& report) noexcept {
  reports.push_back(report);
  report_paths.push_back(report.path);
}
class scoped_recording_handler {
 public:
  scoped_recording_handler() : saved_(fastout::set_error_handler(recording_handler)) {
    reports.clear();
    report_paths.clear();
  }
  ~scoped_recording_handler() { fastout::set_error_handler(saved_); }

 private:
  fastout::error_handler saved_;
};

// Runs `open` and expects std::system_error with `error_number`, naming
// `path` and holding `words`.
void expect_refused(const std::function<void()>& open, int error_number, const std::string& path,
                    const std::string& words) {
  try {
    open();
    ADD_FAILURE() << "not refused: " << path;
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(error_number)) << e.what();
    EXPECT_TRUE(contains(e.what(), "\"" + path + "\"")) << e.what();
    EXPECT_TRUE(contains(e.what(), words)) << e.what();
  }
}

file replacing(const std::string& path, file_options options = {}) {
  options.mode = open_mode::replace;
  return file(path, options);
}

// ---------------------------------------------------------------- the lifecycle

TEST(replace, the_target_shows_the_old_content_until_close_then_the_new) {
  FASTOUT_SKIP_ON_WINDOWS(
      "compares inode numbers, which the C runtime's stat() gives as 0; windows_test checks replacement by content");
  temp_dir dir;
  std::string target = dir.file("config");
  write_file(target, "old");
  ino_t old_inode = status_of(target).st_ino;
  file f = fastout::output_file(target, open_mode::replace, fastout::buffer_size = 4);
  f.write("new content, longer than the buffer");
  f.flush();
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(status_of(target).st_ino, old_inode);
  f.close();
  EXPECT_EQ(read_file(target), "new content, longer than the buffer");
  EXPECT_NE(status_of(target).st_ino, old_inode);
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"config"});
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.stats().bytes_written, 35u);
  EXPECT_NO_THROW(f.close());  // idempotent
}

TEST(replace, creates_a_missing_target) {
  temp_dir dir;
  std::string target = dir.file("new");
  file f = replacing(target);
  f.print("{} lines\n", 3);
  EXPECT_FALSE(std::filesystem::exists(target));
  f.commit();
  EXPECT_EQ(read_file(target), "3 lines\n");
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"new"});
}

TEST(replace, an_empty_replacement_empties_the_target) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  replacing(target).close();
  EXPECT_EQ(read_file(target), "");
}

TEST(replace, many_replacements_in_a_row_leave_nothing_behind) {
  temp_dir dir;
  std::string target = dir.file("t");
  for (int i = 0; i < 50; ++i) {
    file f = replacing(target);
    f.print("generation {}\n", i);
    f.close();
    ASSERT_EQ(read_file(target), fmt::format("generation {}\n", i));
  }
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"t"});
}

// A system that cannot move a file its writer still holds open -- Windows,
// whose ReplaceFileW opens the new file with no sharing at all -- says
// EBUSY while the writer's lock is on it (the fake below, as the Windows
// layer does): the writer lets go of its lock and asks once more. A
// refusal that stays is reported, the target as it was and nothing left.
int held_refusals = 0;
int refuse_to_move_a_held_file(int old_dir, const char* old_path, int new_dir,
                               const char* new_path) {
  using fastout::detail::real_platform;
  const int fd = real_platform.openat(old_dir, old_path, O_RDONLY | O_CLOEXEC, 0);
  if (fd >= 0) {
    // A read lock of our own is refused while the writer holds its lock.
    const bool held = real_platform.try_lock(fd, false) != 0 && errno == EAGAIN;
    real_platform.close(fd);
    if (held) {
      ++held_refusals;
      errno = EBUSY;
      return -1;
    }
  }
  return real_platform.renameat(old_dir, old_path, new_dir, new_path);
}

TEST(replace, a_file_that_cannot_be_moved_while_held_is_moved_once_let_go) {
  temp_dir dir;
  const std::string target = dir.file("t");
  write_file(target, "old\n");
  fastout_test::scoped_platform restore;
  // A named new file and no exchange, as on Windows, so that it is renamed.
  fastout::detail::platform.create_unnamed = [](int) {
    errno = EOPNOTSUPP;
    return -1;
  };
  fastout::detail::platform.exchange = [](int, const char*, int, const char*) {
    errno = ENOSYS;
    return -1;
  };
  fastout::detail::platform.renameat = refuse_to_move_a_held_file;
  held_refusals = 0;
  file f = replacing(target);
  f.print("new\n");
  f.close();
  EXPECT_EQ(held_refusals, 1);
  EXPECT_EQ(read_file(target), "new\n");
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"t"});

  // Refused for good: close() fails with EBUSY, and nothing changed.
  fastout::detail::platform.renameat = [](int, const char*, int, const char*) {
    errno = EBUSY;
    return -1;
  };
  file g = replacing(target);
  g.print("newer\n");
  try {
    g.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EBUSY)) << e.what();
    EXPECT_TRUE(contains(e.what(), "cannot put the new file in place of \"" + target + "\""))
        << e.what();
  }
  EXPECT_EQ(read_file(target), "new\n");
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"t"});
}

TEST(replace, destroyed_without_close_leaves_the_target_and_tells_the_handler) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  scoped_recording_handler handler;
  {
    file f = replacing(target);
    f.write("never committed");
  }
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(temporaries_in(dir.path()), none);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].not_replaced);
  EXPECT_EQ(reports[0].error, system_error_code(ECANCELED));
  EXPECT_EQ(reports[0].bytes_lost, 15u);
  EXPECT_EQ(report_paths[0], target);
}

TEST(replace, the_default_handler_says_the_target_is_as_it_was) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  fastout_test::fd_capture err(2, dir.file("stderr"));
  {
    file f = replacing(target);
    f.write("12345");
  }
  err.restore();
  EXPECT_EQ(err.content(), "fastout: discarded 5 bytes meant to replace \"" + target +
                               "\": the writer was destroyed without close() or commit() (\"" +
                               target + "\" is as it was)\n");
}

// A replacement of a file that never existed, abandoned or failed, says
// so: not "is as it was", which a user would read as "it is still there".
TEST(replace_messages, say_what_became_of_a_target_that_never_existed) {
  temp_dir dir;
  const std::string target = dir.file("r.txt");
  {
    fastout_test::fd_capture err(2, dir.file("stderr"));
    {
      file f = replacing(target);
      f.write("12345");
    }
    err.restore();
    EXPECT_EQ(err.content(), "fastout: discarded 5 bytes meant to replace \"" + target +
                                 "\": the writer was destroyed without close() or commit() (\"" +
                                 target + "\" did not exist, and still does not)\n");
  }
  EXPECT_FALSE(std::filesystem::exists(target));

  // close() that fails before the new file is in place.
  fastout_test::scoped_platform restore;
  fastout::detail::platform.fsync = [](int) {
    errno = EIO;
    return -1;
  };
  for (bool existed : {false, true}) {
    if (existed) write_file(target, "old");
    file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
    f.write("12345");
    try {
      f.close();
      ADD_FAILURE() << "closed";
    } catch (const std::system_error& e) {
      const std::string expected = "cannot sync the new content of \"" + target +
                                   "\" (5 of 5 bytes reached the new file; it was removed, and \"" +
                                   target + "\" left as it was" +
                                   (existed ? "" : ": it did not exist, and still does not") + ")";
      EXPECT_EQ(e.what(), expected + ": " + std::strerror(EIO));
    }
    EXPECT_EQ(std::filesystem::exists(target), existed);
    std::filesystem::remove(target);
  }

  // cancel() that cannot remove the new file.
  fastout::detail::platform.unlinkat = [](int, const char*, int) {
    errno = EBUSY;
    return -1;
  };
  fastout::detail::platform.create_unnamed = [](int) {
    errno = EOPNOTSUPP;  // a named new file, which cancel() must remove
    return -1;
  };
  file f = replacing(target);
  f.write("12345");
  try {
    f.cancel();
    ADD_FAILURE() << "canceled quietly";
  } catch (const std::system_error& e) {
    std::vector<std::string> left = temporaries_in(dir.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(std::string(e.what()),
              "\"" + target +
                  "\" was not created: the writer was canceled, or destroyed without close() or "
                  "commit() (0 of 5 bytes reached the new file); the new file could not be "
                  "removed and is left at \"" +
                  dir.file(left[0]) + "\" (" + std::strerror(EBUSY) + "): " + std::strerror(EBUSY));
    std::filesystem::remove(dir.file(left[0]));
  }
}

// An exception between two writes unwinds through the writer: the target
// keeps its old content, and nothing is left in the directory.
TEST(replace, an_exception_between_writes_leaves_the_old_file) {
  temp_dir dir;
  std::string target = dir.file("report.csv");
  write_file(target, "id,value\n1,old\n");
  scoped_recording_handler handler;
  try {
    file f = replacing(target);
    f.write("id,value\n");
    f.print("{},{}\n", 1, "new");
    throw std::runtime_error("the data source failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_file(target), "id,value\n1,old\n");
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"report.csv"});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].not_replaced);
}

TEST(replace, cancel_discards_quietly) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  scoped_recording_handler handler;
  file f = replacing(target);
  f.write("abandoned");
  f.cancel();
  EXPECT_FALSE(f.is_open());
  EXPECT_FALSE(f.error());
  EXPECT_NO_THROW(f.cancel());
  EXPECT_NO_THROW(f.close());
  EXPECT_THROW(f.write("x"), std::system_error);
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(temporaries_in(dir.path()), none);
  EXPECT_EQ(reports.size(), 0u);
}

TEST(replace, cancel_is_only_for_replacement) {
  temp_dir dir;
  std::string path = dir.file("plain");
  file f(path);
  f.write("kept");
  expect_refused([&] { f.cancel(); }, EINVAL, path, "open_mode::replace");
  EXPECT_TRUE(f.is_open());
  f.close();
  EXPECT_EQ(read_file(path), "kept");
}

TEST(replace, a_moved_replacing_writer_still_replaces) {
  temp_dir dir;
  std::string a = dir.file("a"), b = dir.file("b");
  write_file(a, "old a");
  write_file(b, "old b");
  scoped_recording_handler handler;
  file f = replacing(a);
  f.write("new a");
  file g(std::move(f));
  EXPECT_FALSE(f.is_open());
  g.close();
  EXPECT_EQ(read_file(a), "new a");

  // Move-assigning over an open replacing writer discards it, as its
  // destructor would.
  file h = replacing(b);
  h.write("discarded");
  h = replacing(a);
  h.write("newer a");
  h.close();
  EXPECT_EQ(read_file(b), "old b");
  EXPECT_EQ(read_file(a), "newer a");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(report_paths[0], b);
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

TEST(replace, hard_links_keep_the_old_content) {
  // As with every rename-based replacement (QSaveFile, g_file_set_contents):
  // the name is replaced, not the inode other names share.
  temp_dir dir;
  std::string target = dir.file("t"), other = dir.file("other-name");
  write_file(target, "old");
  ASSERT_EQ(::link(target.c_str(), other.c_str()), 0);
  file f = replacing(target);
  f.write("new");
  f.close();
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(read_file(other), "old");
}

// ---------------------------------------------------------------- refusals

TEST(replace, fmt_style_flags_are_refused_in_either_order) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  expect_refused(
      [&] { fastout::output_file(target, open_mode::replace, file::WRONLY | file::CREATE); },
      EINVAL, target, "cannot be combined with open_mode::replace");
  expect_refused(
      [&] { fastout::output_file(target, file::WRONLY | file::TRUNC, open_mode::replace); }, EINVAL,
      target, "cannot be combined with open_mode::replace");
  file_options options;
  options.mode = open_mode::replace;
  options.flags = file::WRONLY | file::CREATE | O_SYNC;
  expect_refused([&] { file f(target, options); }, EINVAL, target, "fastout::sync");
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"t"});
  // Another open_mode after the flags still wins, as before.
  file f = fastout::output_file(target, file::WRONLY, open_mode::replace, open_mode::append);
  f.write("+");
  f.close();
  EXPECT_EQ(read_file(target), "old+");
}

TEST(replace, descriptors_cannot_be_replaced) {
  temp_dir dir;
  file_options options;
  options.mode = open_mode::replace;
  int fd = ::open(dir.file("adopted").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  expect_refused([&] { file::adopt(fd, options, "adopted"); }, EINVAL, "adopted", "needs a path");
  EXPECT_FALSE(fastout_test::fd_is_open(fd));  // adopted: closed
  fd = ::open(dir.file("borrowed").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  options = {};
  options.sync_directory = true;
  expect_refused([&] { file::borrow(fd, options, "borrowed"); }, EINVAL, "borrowed",
                 "sync_directory needs a path");
  EXPECT_TRUE(fastout_test::fd_is_open(fd));  // borrowed: left open
  ::close(fd);
}

TEST(replace, only_a_regular_file_can_be_replaced) {
  FASTOUT_SKIP_ON_WINDOWS("needs FIFOs, which Windows has not");
  temp_dir dir;
  std::string directory = dir.file("directory");
  ASSERT_EQ(::mkdir(directory.c_str(), 0755), 0);
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::string socket_path = dir.file("socket");
  int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(sock, 0);
  struct sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<struct sockaddr*>(&address), sizeof address), 0);

  expect_refused([&] { replacing(directory); }, EISDIR, directory, "it is a directory");
  expect_refused([&] { replacing(directory + "/"); }, EISDIR, directory + "/", "names a directory");
  expect_refused([&] { replacing(fifo); }, EINVAL, fifo, "it is a FIFO");
  expect_refused([&] { replacing(socket_path); }, EINVAL, socket_path, "it is a socket");
  expect_refused([&] { replacing("/dev/null"); }, EINVAL, "/dev/null",
                 "it is a character device, and only a regular file can be replaced");
  expect_refused([&] { replacing("/"); }, EISDIR, "/", "names a directory");
  expect_refused([&] { replacing(""); }, ENOENT, "", "cannot open");
  expect_refused([&] { replacing(dir.file("missing/t")); }, ENOENT, dir.file("missing/t"),
                 "cannot open its directory");
  ::close(sock);
  EXPECT_EQ(temporaries_in(dir.path()), none);
  EXPECT_TRUE(std::filesystem::is_directory(directory));
}

// ---------------------------------------------------------------- permissions and owners

// On Windows a file's one permission is its read-only attribute
// (kept_bits(), test_util.h): a writable target stays writable, and a
// read-only one is not replaced at all, as ReplaceFileW and MoveFileExW
// refuse it there, but refused at once, saying so, with the target whole
// and nothing left beside it.
TEST(replace, keeps_the_targets_permissions) {
  temp_dir dir;
  scoped_umask mask(077);  // the target's bits win over the umask
  for (mode_t bits :
       {mode_t{0644}, mode_t{0600}, mode_t{0640}, mode_t{0755}, mode_t{0444}, mode_t{01644}}) {
    SCOPED_TRACE(bits);
    std::string target = dir.file("t" + std::to_string(bits));  // 0444 cannot be rewritten in place
    write_file(target, "old");
    ASSERT_EQ(::chmod(target.c_str(), bits), 0);
    file f = replacing(target);
    f.write("new");
#if defined(_WIN32)
    if ((bits & S_IWUSR) == 0) {
      try {
        f.close();
        ADD_FAILURE() << "replaced a read-only file";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), system_error_code(EACCES)) << e.what();
        EXPECT_TRUE(contains(e.what(), target)) << e.what();
        EXPECT_TRUE(contains(e.what(), "read only")) << e.what();
      }
      EXPECT_EQ(mode_of(target), 0444u);
      EXPECT_EQ(read_file(target), "old");
      EXPECT_EQ(temporaries_in(dir.path()), std::vector<std::string>());
      continue;
    }
#endif
    f.close();
    EXPECT_EQ(mode_of(target), fastout_test::kept_bits(bits));
    EXPECT_EQ(read_file(target), "new");
  }
}

TEST(replace, a_new_file_gets_the_permissions_asked_for_masked_by_the_umask) {
  temp_dir dir;
  struct expectation {
    mode_t umask;
    unsigned asked;
    mode_t expected;
  };
  for (expectation e :
       {expectation{022, 0666, 0644}, expectation{077, 0666, 0600}, expectation{0, 0666, 0666},
        expectation{022, 0600, 0600}, expectation{002, 0775, 0775}, expectation{0222, 0666, 0444},
        expectation{022, 0444, 0444}}) {
    SCOPED_TRACE(std::to_string(e.umask) + " " + std::to_string(e.asked));
    scoped_umask mask(e.umask);
    std::string target = dir.file("new" + std::to_string(e.umask) + "-" + std::to_string(e.asked));
    file f = fastout::output_file(target, open_mode::replace, fastout::permissions = e.asked);
    f.write("x");
    f.close();
    EXPECT_EQ(mode_of(target), fastout_test::kept_bits(e.expected));
    EXPECT_EQ(read_file(target), "x");
  }
}

TEST(replace, keeps_the_targets_owner_and_group) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root may give a file to another owner";
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  ASSERT_EQ(::chown(target.c_str(), nobody, nobody_group), 0);
  ASSERT_EQ(::chmod(target.c_str(), 04750), 0);  // set-user-ID stays with its owner
  file f = replacing(target);
  f.write("new");
  f.close();
  struct stat st = status_of(target);
  EXPECT_EQ(st.st_uid, nobody);
  EXPECT_EQ(st.st_gid, nobody_group);
  EXPECT_EQ(st.st_mode & 07777, 04750u);
}

// A user who may write into a directory but does not own the file in it:
// the new file is the user's, with the target's bits minus set-user-ID.
TEST(replace, an_owner_that_cannot_be_kept_drops_set_id_bits) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to set up a file owned by someone else";
  temp_dir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  std::string target = dir.file("t");
  write_file(target, "old");
  ASSERT_EQ(::chmod(target.c_str(), 04755), 0);
  int status = fastout_test::run_in_child([&] {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nobody_group) != 0 || ::setuid(nobody) != 0)
      return 10;
    file f = replacing(target);
    f.write("new");
    f.close();
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status);
  struct stat st = status_of(target);
  EXPECT_EQ(st.st_uid, nobody);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(read_file(target), "new");
}

// ---------------------------------------------------------------- symbolic links

TEST(replace, follows_a_link_and_keeps_it) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  std::string real = dir.file("real"), link = dir.file("link");
  write_file(real, "old");
  ASSERT_EQ(::chmod(real.c_str(), 0640), 0);
  ASSERT_EQ(::symlink("real", link.c_str()), 0);
  file f = replacing(link);
  f.write("new");
  f.close();
  EXPECT_TRUE(S_ISLNK(status_of(link).st_mode));
  EXPECT_EQ(std::filesystem::read_symlink(link), "real");
  EXPECT_EQ(read_file(real), "new");
  EXPECT_EQ(mode_of(real), 0640u);
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// link1 -> sub/link2 -> ../other/link3 -> <absolute path of the real file>
TEST(replace, follows_a_chain_of_links_across_directories) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  for (const char* d : {"sub", "other", "data"}) ASSERT_EQ(::mkdir(dir.file(d).c_str(), 0755), 0);
  std::string real = dir.file("data/real");
  write_file(real, "old");
  ASSERT_EQ(::symlink(real.c_str(), dir.file("other/link3").c_str()), 0);
  ASSERT_EQ(::symlink("../other/link3", dir.file("sub/link2").c_str()), 0);
  ASSERT_EQ(::symlink("sub/link2", dir.file("link1").c_str()), 0);
  file f = replacing(dir.file("link1"));
  f.write("new");
  f.close();
  EXPECT_EQ(read_file(real), "new");
  for (const char* link : {"link1", "sub/link2", "other/link3"})
    EXPECT_TRUE(S_ISLNK(status_of(dir.file(link)).st_mode)) << link;
  for (const char* d : {"", "sub", "other", "data"})
    EXPECT_EQ(temporaries_in(dir.file(d)), none) << d;
}

TEST(replace, a_dangling_link_gets_its_file_created) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  std::string link = dir.file("link");
  ASSERT_EQ(::symlink("target-to-be", link.c_str()), 0);
  file f = replacing(link);
  f.write("created");
  f.close();
  EXPECT_TRUE(S_ISLNK(status_of(link).st_mode));
  EXPECT_EQ(read_file(dir.file("target-to-be")), "created");
  // A dangling link into a directory that does not exist is an error.
  std::string nowhere = dir.file("nowhere");
  ASSERT_EQ(::symlink("missing-dir/file", nowhere.c_str()), 0);
  expect_refused([&] { replacing(nowhere); }, ENOENT, nowhere, "whose directory cannot be opened");
}

TEST(replace, never_follows_a_link_into_something_that_is_not_a_regular_file) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("directory").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("directory", dir.file("to-directory").c_str()), 0);
  ASSERT_EQ(::symlink("directory/", dir.file("to-directory-slash").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/null", dir.file("to-null").c_str()), 0);
  ASSERT_EQ(::symlink("to-null", dir.file("to-link-to-null").c_str()), 0);
  ASSERT_EQ(::symlink("loop-b", dir.file("loop-a").c_str()), 0);
  ASSERT_EQ(::symlink("loop-a", dir.file("loop-b").c_str()), 0);
  expect_refused([&] { replacing(dir.file("to-directory")); }, EISDIR, dir.file("to-directory"),
                 "a directory");
  expect_refused([&] { replacing(dir.file("to-directory-slash")); }, EISDIR,
                 dir.file("to-directory-slash"), "a directory");
  expect_refused([&] { replacing(dir.file("to-null")); }, EINVAL, dir.file("to-null"),
                 "it links to \"/dev/null\", a character device");
  expect_refused([&] { replacing(dir.file("to-link-to-null")); }, EINVAL,
                 dir.file("to-link-to-null"), "a character device");
  expect_refused([&] { replacing(dir.file("loop-a")); }, ELOOP, dir.file("loop-a"),
                 "symbolic links");
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

TEST(replace, replace_link_replaces_the_link_itself) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  std::string real = dir.file("real"), link = dir.file("link");
  write_file(real, "old");
  ASSERT_EQ(::symlink("real", link.c_str()), 0);
  file f = fastout::output_file(link, open_mode::replace, fastout::symlinks::replace_link);
  f.write("new");
  f.close();
  EXPECT_TRUE(S_ISREG(status_of(link).st_mode));
  EXPECT_EQ(read_file(link), "new");
  EXPECT_EQ(read_file(real), "old");
  // A link to a directory is replaced too: the directory is not touched.
  ASSERT_EQ(::mkdir(dir.file("directory").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("directory", dir.file("to-directory").c_str()), 0);
  file g = fastout::output_file(dir.file("to-directory"), open_mode::replace,
                                fastout::symlinks::replace_link);
  g.write("file now");
  g.close();
  EXPECT_EQ(read_file(dir.file("to-directory")), "file now");
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("directory")));
}

// ---------------------------------------------------------------- real failures

// The target becomes a directory while the new content is being written:
// the commit is refused and the directory is left alone.
TEST(replace, a_target_that_becomes_a_directory_mid_write_is_not_replaced) {
  for (bool sync : {false, true}) {  // exchange, rename
    SCOPED_TRACE(sync ? "sync: rename" : "exchange");
    temp_dir dir;
    std::string target = dir.file("t");
    write_file(target, "old");
    file f = fastout::output_file(target, open_mode::replace, fastout::sync = sync);
    f.write("new");
    std::filesystem::rename(target, dir.file("moved"));
    ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
    write_file(target + "/inside", "kept");
    expect_refused([&] { f.close(); }, EISDIR, target, "it became a directory");
    EXPECT_EQ(read_file(target + "/inside"), "kept");
    EXPECT_EQ(read_file(dir.file("moved")), "old");
    EXPECT_EQ(temporaries_in(dir.path()), none);
  }
}

TEST(replace, a_target_removed_mid_write_is_created) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  file f = replacing(target);
  f.write("new");
  std::filesystem::remove(target);
  f.close();
  EXPECT_EQ(read_file(target), "new");
}

// Root ignores permission bits: drop to nobody in a child, as file_test's
// bad_input.no_permission_is_eacces_naming_the_path does. The target itself
// is writable by anyone, so a plain writer could write it; a replacement
// cannot create its new file.
TEST(replace, a_read_only_directory_refuses_at_open) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs POSIX permission bits on a directory (and another user, as root); a Windows directory has only its read-only attribute");
  temp_dir dir;
  std::string locked = dir.file("locked");
  ASSERT_EQ(::mkdir(locked.c_str(), 0755), 0);
  std::string target = locked + "/t";
  write_file(target, "old");
  ASSERT_EQ(::chmod(target.c_str(), 0666), 0);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  // As root, "locked" (root's, 0755) is read-only to nobody; otherwise make
  // it read-only to us.
  const bool root = ::geteuid() == 0;
  if (!root) {
    ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  }
  int status = fastout_test::run_in_child([&] {
    if (root &&
        (::setgroups(0, nullptr) != 0 || ::setgid(nobody_group) != 0 || ::setuid(nobody) != 0))
      return 10;
    try {
      file f = replacing(target);
      return 1;
    } catch (const std::system_error& e) {
      if (e.code() != system_error_code(EACCES)) return 2;
      if (!contains(e.what(), target) || !contains(e.what(), "cannot create a new file")) return 3;
    }
    file plain(target);  // the control: the file itself is writable
    plain.write("plain");
    plain.close();
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status)
      << " (1: opened; 2: wrong errno; 3: wrong message; 10: could not drop privileges)";
  ::chmod(locked.c_str(), 0755);
  EXPECT_EQ(read_file(target), "plain");
  EXPECT_EQ(temporaries_in(locked), none);
}

// Runs `body` in a child that has a tmpfs of `size` bytes mounted at
// `where`, in a mount namespace of its own: nothing outside the child ever
// sees it. Returns the child's status; 77 means the machine does not allow
// it (no privilege for unshare or mount), with the reason in `why`.
int run_with_small_tmpfs(const std::string& where, const char* options,
                         const std::function<int()>& body, std::string& why) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::system_category());
  int status = fastout_test::run_in_child([&] {
    ::close(pipe_fds[0]);
    auto unavailable = [&](const char* what) {
      std::string reason = std::string(what) + ": " + std::strerror(errno);
      ssize_t ignored = ::write(pipe_fds[1], reason.data(), reason.size());
      (void)ignored;
      return 77;
    };
    if (::unshare(CLONE_NEWNS) != 0) return unavailable("unshare(CLONE_NEWNS)");
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return unavailable("mount(MS_PRIVATE)");
    if (::mount("fastout-test", where.c_str(), "tmpfs", 0, options) != 0)
      return unavailable("mount(tmpfs)");
    return body();
  });
  ::close(pipe_fds[1]);
  char reason[256];
  ssize_t n = ::read(pipe_fds[0], reason, sizeof reason);
  ::close(pipe_fds[0]);
  why = n > 0 ? std::string(reason, static_cast<std::size_t>(n)) : "";
  return status;
}

// The new content does not fit: ENOSPC, at a write or at close(), and the
// target keeps its old content. On a small tmpfs where the machine allows
// mounting one; otherwise RLIMIT_FSIZE (EFBIG) stands in, and says so. On
// Windows, which can mount neither, the platform table's writes fill up at
// 256 KiB as a full volume's do (ERROR_DISK_FULL, which the platform makes
// ENOSPC: windows_file_size_limit, test_util.h).
TEST(replace, a_full_filesystem_leaves_the_old_file) {
  temp_dir dir;
  std::string mount_point = dir.file("small");
  ASSERT_EQ(::mkdir(mount_point.c_str(), 0755), 0);
  std::string target = mount_point + "/t";
  const std::string old_content(100 * 1024, 'o');
  const std::string new_content(300 * 1024, 'n');
  auto scenario = [&](int expected_errno) {
    scoped_recording_handler handler;  // in the child: what the destructor reports
    write_file(target, old_content);
    for (bool durable : {false, true}) {
      reports.clear();
      try {
        file f = fastout::output_file(target, open_mode::replace, fastout::sync = durable,
                                      fastout::buffer_size = 64 * 1024);
        f.write(new_content);
        f.close();
        return 1;  // it fit
      } catch (const std::system_error& e) {
        if (e.code() != system_error_code(expected_errno)) return 2;
        if (!contains(e.what(), target)) return 3;
      }
      if (read_file(target) != old_content) return 4;
      if (!temporaries_in(mount_point).empty()) return 5;
      // Thrown by a write: the destructor discarded the rest and said so.
      if (reports.size() != 1 || !reports[0].not_replaced ||
          reports[0].error != system_error_code(expected_errno))
        return 6;
    }
    return 0;
  };
#if defined(_WIN32)
  {
    fastout_test::windows_file_size_limit full(256 * 1024, ERROR_DISK_FULL);
    EXPECT_EQ(scenario(ENOSPC), 0)
        << "1: no error; 2: wrong errno; 3: path missing; 4: target changed; 5: temporary left; "
           "6: no report";
  }
  return;
#endif
  std::string why;
  int status = run_with_small_tmpfs(
      mount_point, "size=256k", [&] { return scenario(ENOSPC); }, why);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
    std::printf("a small tmpfs is not available here (%s): RLIMIT_FSIZE instead\n", why.c_str());
    status = fastout_test::run_in_child([&] {
      ::signal(SIGXFSZ, SIG_IGN);
      struct rlimit limit;
      if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
      write_file(target, old_content);  // under the limit
      limit.rlim_cur = 256 * 1024;
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 11;
      return scenario(EFBIG);
    });
  } else {
    std::printf("a 256 KiB tmpfs in a private mount namespace filled up\n");
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status)
      << " (1: no error; 2: wrong errno; 3: path missing; 4: target changed; 5: temporary left; "
         "6: no report)";
}

// A filesystem mounted read-only: EROFS at open, for a replacement as for a
// plain writer.
TEST(replace, a_read_only_filesystem_refuses_at_open) {
  FASTOUT_SKIP_ON_WINDOWS("needs mount namespaces, which Windows has not");
  temp_dir dir;
  std::string mount_point = dir.file("ro");
  ASSERT_EQ(::mkdir(mount_point.c_str(), 0755), 0);
  std::string target = mount_point + "/t";
  std::string why;
  int status = run_with_small_tmpfs(
      mount_point, "size=64k",
      [&] {
        write_file(target, "old");
        if (::mount(nullptr, mount_point.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0)
          return 10;
        try {
          file f = replacing(target);
          return 1;
        } catch (const std::system_error& e) {
          if (e.code() != system_error_code(EROFS)) return 2;
          if (!contains(e.what(), target)) return 3;
        }
        return read_file(target) == "old" ? 0 : 4;
      },
      why);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "cannot mount a tmpfs here (" << why
                 << "); replace.a_read_only_directory_refuses_at_open covers EACCES";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status);
}

// The same real failure through a plain writer with sync: the error names
// the path, and the destructor's report says what was lost.
// (On Windows, which has no RLIMIT_FSIZE, the platform table's writes stop
// the file at 1000 bytes as Windows does one that outgrows its filesystem:
// ERROR_FILE_TOO_LARGE, EFBIG; windows_file_size_limit, test_util.h.)
TEST(replace, a_write_error_is_reported_at_the_call_and_at_close) {
  temp_dir dir;
  std::string target = dir.file("t");
  write_file(target, "old");
  auto body = [&] {
    file f = fastout::output_file(target, open_mode::replace, fastout::buffer_size = 256);
    try {
      for (int i = 0; i < 100; ++i) f.write(std::string(100, 'x'));
      return 1;
    } catch (const std::system_error& e) {
      if (e.code() != system_error_code(EFBIG)) return 2;
    }
    try {
      f.close();
      return 3;
    } catch (const std::system_error& e) {
      if (e.code() != system_error_code(EFBIG)) return 4;
      if (!contains(e.what(), "left as it was")) return 5;
    }
    return 0;
  };
  int status = fastout_test::run_with_file_size_limit(1000, body);
  EXPECT_EQ(status, 0) << fastout_test::describe_status(status);
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// ---------------------------------------------------------------- durability options

// On Windows, where NTFS has no directory sync, sync_directory is refused at
// close() (ENOTSUP), never claimed, and only after every byte is in place
// (windows.sync_directory_is_refused_not_claimed).
TEST(durability, sync_and_sync_directory_write_the_same_bytes) {
  temp_dir dir;
  std::string data(300000, 'd');
  for (open_mode mode : {open_mode::truncate, open_mode::append, open_mode::replace}) {
    for (bool sync : {false, true})
      for (bool sync_directory : {false, true}) {
        std::string path = dir.file("f");
        std::filesystem::remove(path);
        file f = fastout::output_file(path, mode, fastout::sync = sync,
                                      fastout::sync_directory = sync_directory);
        f.write(data);
        f.sync();  // mid-way, as a log would
        f.write(data);
#if defined(_WIN32)
        if (sync_directory) {
          try {
            f.close();
            ADD_FAILURE() << "a directory sync was claimed on Windows";
          } catch (const std::system_error& e) {
            EXPECT_EQ(e.code(), std::errc::not_supported) << e.what();
          }
          EXPECT_EQ(read_file(path), data + data);
          continue;
        }
#endif
        f.close();
        EXPECT_EQ(read_file(path), data + data);
      }
  }
}

TEST(durability, sync_directory_follows_links_to_the_files_directory) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("data").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("data/real", dir.file("link").c_str()), 0);
  file f =
      fastout::output_file(dir.file("link"), fastout::sync = true, fastout::sync_directory = true);
  f.write("through the link");
  f.close();
  EXPECT_EQ(read_file(dir.file("data/real")), "through the link");
  EXPECT_TRUE(S_ISLNK(status_of(dir.file("link")).st_mode));
}

TEST(durability, sync_on_something_that_cannot_sync_is_an_error) {
  FASTOUT_SKIP_ON_WINDOWS(
      "FlushFileBuffers on a pipe waits until its reader has read everything: syncing a pipe is no error on Windows");
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  file_options options;
  options.sync = true;
  file f = file::adopt(fds[1], options, "the pipe");
  f.write("x");
  expect_refused([&] { f.close(); }, EINVAL, "the pipe", "cannot sync");
  ::close(fds[0]);
}

// Preallocation reserves the space at open, and close() gives back what was
// not used.
TEST(durability, preallocation_is_reserved_then_trimmed) {
  temp_dir dir;
  const std::uint64_t reserve = 8 << 20;
  for (open_mode mode : {open_mode::truncate, open_mode::replace, open_mode::append}) {
    SCOPED_TRACE(static_cast<int>(mode));
    std::string path = dir.file("f");
    write_file(path, std::string(4096, 'a'));
    file f = fastout::output_file(path, mode, fastout::preallocate = reserve);
    struct stat st;
    ASSERT_EQ(::fstat(f.descriptor(), &st), 0);
    bool reserved = static_cast<std::uint64_t>(fastout_test::allocated_bytes(st)) >= reserve;
    f.write(std::string(10000, 'b'));
    f.close();
    st = status_of(path);
    std::uint64_t expected_size = mode == open_mode::append ? 14096 : 10000;
    EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), expected_size);
    if (!reserved) {
      std::printf("this filesystem did not preallocate: nothing to trim\n");
      continue;
    }
    EXPECT_LT(static_cast<std::uint64_t>(fastout_test::allocated_bytes(st)),
              expected_size + (1 << 20))
        << "the unused reservation was not released";
  }
}

// page_cache::drop writes exactly the same bytes, with RWF_DONTCACHE where
// the kernel and filesystem take it and plain writes where they do not
// (everywhere, where there is no pwritev2: under qemu-user).
TEST(durability, page_cache_drop_writes_the_same_bytes_everywhere) {
  const bool no_pwritev2 = fastout_test::pwritev2_is_missing();
  if (no_pwritev2) std::printf("%s\n", fastout_test::pwritev2_missing_note);
  temp_dir dir;
  std::string data;
  for (int i = 0; i < 200000; ++i) data += static_cast<char>('a' + i % 26);
  std::vector<std::string> places = {dir.path()};
  struct statfs shm;
  if (::statfs("/dev/shm", &shm) == 0 && shm.f_type == TMPFS_MAGIC) places.push_back("/dev/shm");
  for (const std::string& place : places) {
    std::string path = place + "/fastout-dontcache-" + std::to_string(::getpid());
    file f = fastout::output_file(path, fastout::page_cache::drop, fastout::sync = true,
                                  fastout::buffer_size = 4096);
    for (std::size_t i = 0; i < data.size(); i += 1000) f.write(data.data() + i, 1000);
    bool dropped = f.drops_page_cache();
    f.close();
    EXPECT_EQ(read_file(path), data);
    std::printf("%s: RWF_DONTCACHE %s\n", place.c_str(),
                dropped ? "taken" : "refused, plain writes instead");
    if (no_pwritev2) {
      EXPECT_FALSE(dropped) << "there is no pwritev2 here";
    } else if (place == "/dev/shm") {
      EXPECT_FALSE(dropped) << "tmpfs has no RWF_DONTCACHE";
    }
    std::filesystem::remove(path);
  }
}

// ---------------------------------------------------------------- writeback while writing

// What a replacement with sync asked of start_writeback() (sync_file_range()
// on Linux), on which file.
struct writeback_seen {
  int calls = 0;
  int failing_call = 0;  // 1-based; 0: none fails
  int fd = -1;
  int fsyncs = 0;
} writeback;

int seeing_start_writeback(int fd, off_t offset, off_t size) {
  ++writeback.calls;
  writeback.fd = fd;
  if (writeback.calls == writeback.failing_call) {
    errno = EIO;
    return -1;
  }
  return fastout::detail::real_platform.start_writeback(fd, offset, size);
}
int counting_file_fsync(int fd) {
  ++writeback.fsyncs;
  return fastout::detail::real_platform.fsync(fd);
}

std::string mebibytes(int count, char first) {
  std::string data;
  for (int i = 0; i < count; ++i) data.append(std::size_t{1} << 20, static_cast<char>(first + i));
  return data;
}

// A replacement with sync starts writing the new file back while it is
// written -- the new file, never the target -- and puts it in place after
// the fsync, as before.
TEST(replace_writeback, starts_on_the_new_file_and_replaces_after_the_sync) {
  FASTOUT_SKIP_UNLESS_LINUX("writeback while writing (sync_file_range)");
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, "old");
  fastout_test::scoped_platform restore;
  fastout::detail::platform.start_writeback = seeing_start_writeback;
  fastout::detail::platform.fsync = counting_file_fsync;
  writeback = writeback_seen();
  const std::string data = mebibytes(24, 'a');
  file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
  for (std::size_t i = 0; i < data.size(); i += 65536) f.write(data.data() + i, 65536);
  EXPECT_EQ(writeback.calls, 2);  // the last 256 KiB are still in the buffer
  struct stat written, now;
  ASSERT_EQ(::fstat(writeback.fd, &written), 0);
  ASSERT_EQ(::stat(target.c_str(), &now), 0);
  EXPECT_NE(written.st_ino, now.st_ino) << "writeback asked of the target";
  EXPECT_EQ(read_file(target), "old");
  f.close();
  EXPECT_EQ(writeback.calls, 3);  // the flush at close() completed the third range
  EXPECT_EQ(writeback.fsyncs, 1);
  EXPECT_EQ(read_file(target), data);
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

// EIO from the writeback of the new file: the write that met it throws
// (its 64 KiB were accepted, and are counted as lost with the rest),
// nothing is put in place, nothing is left beside the target, and the new
// file is never fsynced (a sync after a failed writeback could succeed
// without the lost pages).
TEST(replace_writeback, eio_leaves_the_target_as_it_was) {
  FASTOUT_SKIP_UNLESS_LINUX("writeback while writing (sync_file_range)");
  temp_dir dir;
  const std::string target = dir.file("target");
  write_file(target, "old");
  fastout_test::scoped_platform restore;
  fastout::detail::platform.start_writeback = seeing_start_writeback;
  fastout::detail::platform.fsync = counting_file_fsync;
  writeback = writeback_seen();
  writeback.failing_call = 2;
  const std::string data = mebibytes(24, 'a');
  file f = fastout::output_file(target, open_mode::replace, fastout::sync = true);
  try {
    for (std::size_t i = 0; i < data.size(); i += 65536) f.write(data.data() + i, 65536);
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_TRUE(contains(e.what(), "cannot sync")) << e.what();
  }
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_EQ(std::string(e.what()),
              "cannot sync the new content of \"" + target +
                  "\" (16777216 of 16842752 bytes reached the new file; it was removed, and \"" +
                  target + "\" left as it was): Input/output error");
  }
  EXPECT_EQ(writeback.fsyncs, 0);
  EXPECT_EQ(writeback.calls, 2);
  EXPECT_EQ(read_file(target), "old");
  EXPECT_EQ(temporaries_in(dir.path()), none);
}

}  // namespace
