// SPDX-License-Identifier: MIT
// Test-only stand-in for <sys/ioctl.h> in the Windows build: see ../posix_shim.h.
#include "../posix_shim.h"
