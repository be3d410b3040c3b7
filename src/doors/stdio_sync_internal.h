// SPDX-License-Identifier: MIT
// stdio's half of sync_with_stdio(): stdio's stdout and stderr handed to
// fastout's standard writers, without the C++ streams. Apart from
// iostream.cpp because <iostream> cannot be included without its start-up
// (ios_base::Init builds the C++ locale and eight standard streams when the
// program or library is loaded): libfastout-c, whose C++ runtime is its own
// and whose programs have no std::cout to sync, calls this alone
// (c_api_stdio_sync.cpp), and libfastout-c.so is built without
// iostream.cpp. Internal: not installed.
#ifndef FASTOUT_SRC_DOORS_STDIO_SYNC_INTERNAL_H_
#define FASTOUT_SRC_DOORS_STDIO_SYNC_INTERNAL_H_

namespace fastout::detail {

/// With `on`, stdio's stdout and stderr become unbuffered streams that hand
/// every call to standard_output() and standard_error(), after what stdio
/// held is flushed; without, stdio's own streams come back, after what
/// fastout's writers hold is flushed. Returns whether stdio's streams
/// were handed over before the call. Throws std::system_error if the
/// streams cannot be made (a C library without cookie streams: ENOTSUP),
/// and then nothing has changed. One thread at a time, as stdio's own
/// freopen() of stdout.
bool sync_stdio_streams(bool on);

}  // namespace fastout::detail

#endif  // FASTOUT_SRC_DOORS_STDIO_SYNC_INTERNAL_H_
