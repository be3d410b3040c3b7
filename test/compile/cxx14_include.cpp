// SPDX-License-Identifier: MIT
// Compiled as C++14 by the cxx14_is_refused_clearly test: including fastout
// must give one error that names C++17, not pages of template errors.
#include <fastout/file.h>

int main() { return 0; }
