// SPDX-License-Identifier: MIT
// Test-only stand-in for <sys/wait.h> in the Windows build: see ../posix_shim.h.
#include "../../posix_shim.h"
