// SPDX-License-Identifier: MIT
// Safe replacement (open_mode::replace) when its system calls fail, through
// the fake system calls: failing at every step of every scenario leaves the
// target whole, and each fallback says where things are.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault_util.h"
#include "test_util.h"

namespace {

using namespace fastout_faults;  // NOLINT(google-build-using-namespace): the shared fakes,
                                 // and the names every fault test uses (fault_util.h)
using fastout_test::nobody;
using fastout_test::nobody_group;

using replace_faults = faked_platform;

// ---------------------------------------------------------------- safe replacement, step by step
//
// Every step of open_mode::replace and of the durability options fails in
// turn (fake_plan's step sweep): each failure gives an error naming the
// path, the target shows either its old content or the whole new content
// (whichever the message says), no temporary file stays behind unless the
// message names it, and no descriptor leaks.

struct replace_scenario {
  std::string name;
  bool target_exists;
  bool named;    // O_TMPFILE refused: a named temporary file
  bool durable;  // sync and sync_directory
  std::uint64_t preallocate;
  bool commit;  // false: the writer is destroyed without close()
};

std::vector<replace_scenario> replace_scenarios() {
  std::vector<replace_scenario> all;
  for (bool exists : {true, false})
    for (bool named : {false, true})
      for (bool durable : {false, true})
        for (std::uint64_t preallocate : {std::uint64_t{0}, std::uint64_t{1} << 20})
          for (bool commit : {true, false}) {
            std::string name = std::string(exists ? "existing" : "new") +
                               (named ? ", named" : ", O_TMPFILE") +
                               (durable ? ", sync + sync_directory" : "") +
                               (preallocate != 0 ? ", preallocated" : "") +
                               (commit ? "" : ", destroyed without close()");
            all.push_back({name, exists, named, durable, preallocate, commit});
          }
  return all;
}

struct replace_outcome {
  bool threw = false;
  int error = 0;
  std::string message;
};

replace_outcome run_replace(const std::string& path, const replace_scenario& scenario) {
  file_options options = with_buffer(4096);
  options.mode = fastout::open_mode::replace;
  options.sync = scenario.durable;
#if defined(_WIN32)
  // Windows refuses sync_directory (windows.sync_directory_is_refused_not_claimed):
  // the durable scenarios sync the file only.
  options.sync_directory = false;
#else
  options.sync_directory = scenario.durable;
#endif
  options.preallocate = scenario.preallocate;
  replace_outcome outcome;
  try {
    file f(path, options);
    const std::string& data = new_content();
    for (std::size_t i = 0; i < data.size(); i += 3000)
      f.write(data.data() + i, std::min<std::size_t>(3000, data.size() - i));
    if (scenario.commit) f.close();
  } catch (const std::system_error& e) {
    outcome.threw = true;
    outcome.error = e.code().value();
    outcome.message = e.what();
  }
  return outcome;
}

// "old", "new", "missing", or what else is at `path`, for short messages.
std::string state_of(const std::string& path) {
  if (!std::filesystem::exists(path)) return "missing";
  std::string content = read_file(path);
  if (content == old_content) return "old";
  if (content == new_content()) return "new";
  return std::to_string(content.size()) + " other bytes";
}

// Steps whose failure the writer works around: preallocation is optional,
// the umask has a fallback, random names have a fallback, the /proc probe
// falls back to a named file, and a failing close of a descriptor only read
// from is no loss.
bool failure_is_worked_around(const std::string& step) {
  return step == "reserve" || step == "read" || step == "random_bytes" || step == "openat /proc" ||
         step == "fstatat /proc" || step == "fstat" || step == "close (read-only)";
}

TEST_F(replace_faults, failing_at_every_step_keeps_the_target_whole) {
  int runs = 0;
  for (const replace_scenario& scenario : replace_scenarios()) {
    SCOPED_TRACE(scenario.name);
    const std::string target = path("target");
    auto reset = [&] {
      std::filesystem::remove(target);
      for (const std::string& name : fastout_test::names_in(dir_.path()))
        std::filesystem::remove_all(dir_.file(name));
      if (scenario.target_exists) fastout_test::write_file(target, old_content);
    };
    const std::string old_state = scenario.target_exists ? "old" : "missing";
    const std::string new_state = scenario.commit ? "new" : old_state;

    // The steps of a run where nothing fails.
    reset();
    plan = fake_plan();
    plan.tmpfile_unsupported = scenario.named;
    plan.record_steps = true;
    {
      scoped_error_handler handler(recording_handler, handler_calls);
      replace_outcome clean = run_replace(target, scenario);
      ASSERT_FALSE(clean.threw) << clean.message;
      EXPECT_EQ(handler_calls.size(), scenario.commit ? 0u : 1u);
    }
    ASSERT_EQ(state_of(target), new_state);
    ASSERT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
    const std::vector<std::string> steps = plan.step_names;
    ASSERT_GT(steps.size(), 3u);

    for (int step = 1; step <= static_cast<int>(steps.size()); ++step) {
      const std::string& call = steps[static_cast<std::size_t>(step - 1)];
      SCOPED_TRACE("step " + std::to_string(step) + " of " + std::to_string(steps.size()) + ": " +
                   call);
      reset();
      plan = fake_plan();
      plan.tmpfile_unsupported = scenario.named;
      plan.fail_step = step;
      plan.step_error = EIO;
      const int descriptors = fastout_test::open_descriptors();
      scoped_error_handler handler(recording_handler, handler_calls);
      replace_outcome outcome = run_replace(target, scenario);
      ++runs;
      EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
      const std::string now = state_of(target);
      std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
      if (outcome.threw) {
        EXPECT_EQ(outcome.error, EIO) << outcome.message;
        EXPECT_TRUE(contains(outcome.message, target)) << outcome.message;
      }
      // Thrown by the constructor, by a write, or by close().
      const bool at_open = outcome.threw && outcome.message.rfind("cannot open", 0) == 0;
      const bool at_write = outcome.threw && !at_open && !handler_calls.empty();

      if (at_open) {
        // Nothing was created, so there is nothing to report or remove.
        EXPECT_EQ(now, old_state) << outcome.message;
        EXPECT_EQ(handler_calls.size(), 0u);
        EXPECT_EQ(left, std::vector<std::string>());
        continue;
      }
      if (!scenario.commit || at_write) {
        // Destroyed without close(): always the old state, and the handler
        // hears of it, once.
        EXPECT_EQ(now, old_state) << outcome.message;
        ASSERT_EQ(handler_calls.size(), 1u);
        EXPECT_TRUE(handler_calls[0].not_replaced);
        EXPECT_EQ(handler_calls[0].path, target);
        if (call == "unlinkat") {
          EXPECT_EQ(left.size(), 1u);  // the named file whose removal failed
          EXPECT_EQ(handler_calls[0].error, system_error_code(EIO));
        } else {
          EXPECT_EQ(left, std::vector<std::string>());
        }
        continue;
      }
      EXPECT_EQ(handler_calls.size(), 0u);  // close() threw, or all went well
      if (!outcome.threw) {
        EXPECT_TRUE(failure_is_worked_around(call)) << "a failure that went unreported";
        EXPECT_EQ(now, new_state);
        EXPECT_EQ(left, std::vector<std::string>());
        continue;
      }
      if (contains(outcome.message, "left as it was")) {
        EXPECT_EQ(now, old_state) << outcome.message;
      } else {
        // Failed after the new file was in place: the message says so.
        EXPECT_TRUE(contains(outcome.message, "in place") || contains(outcome.message, "replaced "))
            << outcome.message;
        EXPECT_EQ(now, new_state) << outcome.message;
      }
      if (contains(outcome.message, "left at")) {
        ASSERT_EQ(left.size(), 1u) << outcome.message;
        EXPECT_TRUE(contains(outcome.message, left[0])) << outcome.message;
      } else {
        EXPECT_EQ(left, std::vector<std::string>()) << outcome.message;
      }
    }
  }
  std::printf("%d runs, each failing at one step\n", runs);
}

// On Windows, where a file's one permission is its read-only attribute
// (kept_bits(), test_util.h), "private" is the security descriptor the
// directory gives every new file: what is checked there is the name, that
// the new file is writable and the target untouched until close().
TEST_F(replace_faults, a_named_temporary_is_private_until_it_is_in_place) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  plan.tmpfile_unsupported = true;
  file f = fastout::output_file(target, fastout::open_mode::replace, fastout::buffer_size = 16);
  f.write(new_content());
  std::vector<std::string> names = fastout_test::temporaries_in(dir_.path());
  ASSERT_EQ(names.size(), 1u);
  // ".fastout-" + 16 hex digits + "-" + the target's name
  ASSERT_EQ(names[0].size(), 9u + 16u + 1u + 6u) << names[0];
  EXPECT_EQ(names[0].substr(25), "-target");
  EXPECT_EQ(names[0].find_first_not_of("0123456789abcdef", 9), 25u) << names[0];
  struct stat st;
  ASSERT_EQ(::stat(dir_.file(names[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, fastout_test::kept_bits(0600));
  EXPECT_EQ(read_file(target), old_content);
  f.close();
  EXPECT_EQ(read_file(target), new_content());
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, fastout_test::kept_bits(0644));
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

TEST_F(replace_faults, temporary_names_that_exist_are_never_reused) {
  const std::string taken = ".fastout-5a5a5a5a5a5a5a5a-target";
  fastout_test::write_file(path(taken.c_str()), "someone else's");
  // Another live writer's file: it holds the lock a writer holds on its
  // new file. (Without it, the file would be one a killed writer left, and
  // a replacement of "target" would remove it: replace_crash_test.cpp.)
  fastout_test::live_writer_lock other_writer(path(taken.c_str()));
  for (bool named : {true, false}) {
    SCOPED_TRACE(named ? "named" : "O_TMPFILE, linked to a temporary name");
    plan = fake_plan();
    plan.tmpfile_unsupported = named;
    plan.same_random = 2;  // the first two names collide
    std::string target = path("target");
    fastout_test::write_file(target, old_content);
    file f = fastout::output_file(target, fastout::open_mode::replace);
    f.write("new");
    f.close();
    EXPECT_EQ(read_file(target), "new");
    EXPECT_EQ(read_file(path(taken.c_str())), "someone else's");
    EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>{taken});
  }
  // A hundred collisions in a row: EEXIST, naming the path.
  plan = fake_plan();
  plan.tmpfile_unsupported = true;
  plan.same_random = 1000;
  expect_failure(
      [&] { file f = fastout::output_file(path("target"), fastout::open_mode::replace); }, EEXIST,
      path("target"), "open");
}

TEST_F(replace_faults, without_rename_exchange_a_rename_replaces) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.exchange.error = EINVAL;  // as a filesystem without RENAME_EXCHANGE answers
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  f.close();
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(plan.exchange.calls, 1);
  // Windows' rename says EBUSY while the writer's lock is on the new file
  // (ReplaceFileW takes it with no sharing), and is asked again without it.
  EXPECT_EQ(plan.renames, fastout_test::platform_is("windows") ? 2 : 1);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

// Between the last check and the exchange, the target becomes a directory:
// the exchange is undone, and the directory stays where it was.
TEST_F(replace_faults, an_exchange_that_catches_a_directory_is_undone) {
  static std::string target, moved;
  static bool swapped;
  target = path("target");
  moved = path("moved-away");
  swapped = false;
  fastout_test::write_file(target, old_content);
  fastout::detail::platform.exchange = [](int old_dir, const char* old_path, int new_dir,
                                          const char* new_path) {
    if (!swapped) {
      swapped = true;
      std::filesystem::rename(target, moved);
      std::filesystem::create_directory(target);
      fastout_test::write_file(target + "/inside", "kept");
    }
    return fastout::detail::real_platform.exchange(old_dir, old_path, new_dir, new_path);
  };
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  expect_failure([&] { f.close(); }, EISDIR, target, "close");
  EXPECT_TRUE(std::filesystem::is_directory(target));
  EXPECT_EQ(read_file(target + "/inside"), "kept");
  EXPECT_EQ(read_file(moved), old_content);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

TEST_F(replace_faults, old_content_that_cannot_be_removed_is_named) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs an atomic exchange (renameat2, renameatx_np), which Windows has not");
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.unlink_error = EBUSY;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EBUSY));
    std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_TRUE(contains(e.what(), "replaced \"" + target + "\"")) << e.what();
    EXPECT_TRUE(contains(e.what(), dir_.file(left[0]))) << e.what();
    EXPECT_EQ(read_file(dir_.file(left[0])), old_content);
  }
  EXPECT_EQ(read_file(target), "new");
}

// cancel() is quiet, unless the new file cannot be removed: then it throws,
// naming what is left.
TEST_F(replace_faults, a_cancel_that_cannot_remove_the_new_file_says_where_it_is) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.tmpfile_unsupported = true;
  plan.unlink_error = EBUSY;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("abandoned");
  try {
    f.cancel();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EBUSY));
    std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_TRUE(contains(e.what(), dir_.file(left[0]))) << e.what();
    EXPECT_TRUE(contains(e.what(), "\"" + target + "\" was not replaced")) << e.what();
  }
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(read_file(target), old_content);
}

TEST_F(replace_faults, a_directory_sync_that_fails_after_replacing_says_the_content_is_in_place) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.sync_error = EIO;
  plan.syncs_allowed = 1;  // the file's sync succeeds, the directory's fails
  file f = fastout::output_file(target, fastout::open_mode::replace, fastout::sync = true,
                                fastout::sync_directory = true);
  f.write("new");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EIO));
    EXPECT_TRUE(contains(e.what(), "cannot sync the directory of \"" + target + "\""));
    EXPECT_TRUE(contains(e.what(), "the new content is in place, but may not survive a power loss"))
        << e.what();
  }
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(plan.syncs, 2);
}

// Windows has no /proc either: there the umask is always read with
// _umask(), set and put back, for the new file's read-only attribute.
TEST_F(replace_faults, an_unreadable_proc_falls_back_to_the_umask) {
  plan.read.error = EIO;
  mode_t mask = static_cast<mode_t>(::umask(027));
  std::string target = path("new");
  {
    file f = fastout::output_file(target, fastout::open_mode::replace, fastout::permissions = 0666);
    f.write("x");
    f.close();
  }
  mode_t after = static_cast<mode_t>(::umask(mask));
  EXPECT_EQ(after, 027u);  // set and put back
#if defined(_WIN32)
  // The new file's creation reads it too, as the runtime's _open() does.
  EXPECT_EQ(plan.umask_calls, 4);
#else
  EXPECT_EQ(plan.umask_calls, 2);
#endif
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, fastout_test::kept_bits(0640));
}

TEST_F(replace_faults, an_owner_that_cannot_be_set_keeps_no_set_id_bits) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the target another owner";
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  ASSERT_EQ(::chown(target.c_str(), nobody, nobody_group), 0);
  ASSERT_EQ(::chmod(target.c_str(), 06755), 0);
  plan.fchown.error = EPERM;  // as for a process that may not give files away
  {
    file f = fastout::output_file(target, fastout::open_mode::replace);
    f.write("new");
    f.close();
  }
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(plan.fchown.calls, 2);  // owner and group, then the group alone
  EXPECT_EQ(read_file(target), "new");

  // Any other failure to set the owner fails the replacement.
  ASSERT_EQ(::chown(target.c_str(), nobody, nobody_group), 0);
  plan = fake_plan();
  plan.fchown.error = EIO;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("newer");
  expect_failure([&] { f.close(); }, EIO, target, "close");
  EXPECT_EQ(read_file(target), "new");
}

TEST_F(replace_faults, opening_failures_name_the_path_and_leave_nothing) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs symbolic links: Windows gives them only to a privileged user or in developer mode, and Wine 8 makes none (its CreateSymbolicLinkW says it did)");
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  const int descriptors = fastout_test::open_descriptors();
  plan.openat.error = EACCES;
  plan.openat.allowed = 1;  // the directory opens; the new file does not
  expect_failure([&] { file f = fastout::output_file(target, fastout::open_mode::replace); },
                 EACCES, target, "open");
  plan = fake_plan();
  plan.fstatat.error = EIO;
  expect_failure([&] { file f = fastout::output_file(target, fastout::open_mode::replace); }, EIO,
                 target, "open");
  ASSERT_EQ(::symlink("target", path("link").c_str()), 0);
  plan = fake_plan();
  plan.readlinkat.error = EIO;
  expect_failure([&] { file f = fastout::output_file(path("link"), fastout::open_mode::replace); },
                 EIO, path("link"), "open");
  EXPECT_EQ(read_file(target), old_content);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
  EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
}

}  // namespace
