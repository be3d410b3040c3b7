// SPDX-License-Identifier: MIT
// Test-only stand-in for <pwd.h> in the Windows build: see ../posix_shim.h.
#include "./../posix_shim.h"
