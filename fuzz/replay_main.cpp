// SPDX-License-Identifier: MIT
// main() for a fuzz target built without a fuzzing engine (no
// $LIB_FUZZING_ENGINE): runs every file it is given, and every file in
// every directory it is given, through the target once, as libFuzzer does
// with file arguments. For reproducing a report with another compiler,
// under gdb or valgrind, or replaying a corpus in a plain build ({fmt}'s
// test/fuzzing/main.cc and zstd's regression_driver.c do the same).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

bool run_path(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "no such file: %s\n", path.c_str());
    return false;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return false;
  bool ok = true;
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  for (const std::string& name : names) ok = run_path(path + "/" + name) && ok;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = run_path(argv[i]) && ok;
  return ok ? 0 : 1;
}
