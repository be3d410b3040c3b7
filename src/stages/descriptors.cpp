// SPDX-License-Identifier: MIT
// The registry of file stages that may give up their descriptor, and the
// open that makes room beyond the descriptor limit (descriptors_internal.h).
#include "stages/descriptors_internal.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "platform/platform_internal.h"
#include "stages/file_stage_internal.h"

namespace fastout::detail {
namespace {

// The stages that hold a descriptor they may give up, each knowing its
// place (file_stage::registry_slot_), so that leaving is O(1). Made once and
// never destroyed: a writer destroyed during the process's exit, after
// every static object, may still leave it.
struct registry {
  std::mutex lock;
  std::vector<file_stage*> stages;
};

registry& the_registry() noexcept {
  static registry* made = new registry;
  return *made;
}

std::atomic<std::uint64_t> use_clock{0};

// Under the registry's lock: `stage`, which is registered, leaves it.
void remove(registry& r, file_stage* stage) noexcept {
  const std::size_t slot = stage->registry_slot_;
  file_stage* last = r.stages.back();
  r.stages[slot] = last;
  last->registry_slot_ = slot;
  r.stages.pop_back();
  stage->registry_slot_ = file_stage::unregistered;
}

}  // namespace

std::uint64_t next_use_stamp() noexcept {
  return use_clock.fetch_add(1, std::memory_order_relaxed) + 1;
}

FASTOUT_HOT std::uint64_t use_stamp_after(std::uint64_t last) noexcept {
  // Stamps are unique (each from the clock's fetch_add), so only the stage
  // that took the latest can find it unchanged. Between threads the order
  // of uses is only approximate anyway: a release picks an idle file.
  if (use_clock.load(std::memory_order_relaxed) == last) return last;
  return next_use_stamp();
}

void register_releasable(file_stage* stage) noexcept {
  registry& r = the_registry();
  std::lock_guard<std::mutex> hold(r.lock);
  if (stage->registry_slot_ != file_stage::unregistered) return;
  try {
    r.stages.push_back(stage);
  } catch (const std::bad_alloc&) {
    return;  // not releasable this time: nothing else changes
  }
  stage->registry_slot_ = r.stages.size() - 1;
}

void unregister_releasable(file_stage* stage) noexcept {
  registry& r = the_registry();
  std::lock_guard<std::mutex> hold(r.lock);
  if (stage->registry_slot_ != file_stage::unregistered) remove(r, stage);
}

release_outcome release_idle_descriptor() noexcept {
  registry& r = the_registry();
  std::lock_guard<std::mutex> hold(r.lock);
  // The least recently used first; one whose writer is in a slow path now
  // (its lock taken) is passed over this time.
  release_outcome outcome = release_outcome::none;
  for (;;) {
    file_stage* oldest = nullptr;
    for (file_stage* candidate : r.stages) {
      if (candidate->passed_over_) continue;
      if (oldest == nullptr || candidate->last_use() < oldest->last_use()) oldest = candidate;
    }
    if (oldest == nullptr) break;
    const file_stage::release_result result = oldest->try_release();
    if (result == file_stage::release_result::busy) {
      oldest->passed_over_ = true;
      outcome = release_outcome::busy;
      continue;
    }
    // Released, or never to be: either way it holds nothing to give.
    remove(r, oldest);
    if (result == file_stage::release_result::released) {
      outcome = release_outcome::released;
      break;
    }
  }
  for (file_stage* candidate : r.stages) candidate->passed_over_ = false;
  return outcome;
}

int open_after_emfile(int (*open)(void* context), void* context) noexcept {
  if (raise_descriptor_limit_once()) {
    const int result = open(context);
    if (result >= 0 || errno != EMFILE) return result;
  }
  // Each writer passed over is in the middle of a call that ends (a write
  // to a regular file, a close): its thread holds no other writer's lock
  // meanwhile, so waiting for it cannot deadlock. Bounded all the same.
  constexpr int most_waits = 100000;
  int waits = 0;
  for (;;) {
    const release_outcome outcome = release_idle_descriptor();
    if (outcome == release_outcome::busy) {
      if (++waits > most_waits) {
        errno = EMFILE;
        return -1;
      }
      std::this_thread::yield();
    }
    // Also when nothing was left to release: a writer on another thread
    // may have closed its file since this open failed. Once.
    const int result = open(context);
    if (result >= 0 || errno != EMFILE || outcome == release_outcome::none) return result;
  }
}

}  // namespace fastout::detail
