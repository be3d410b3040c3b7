#include "output_helpers.h"

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace fastout_bench {

void throw_errno(const char* action, const char* path) {
  throw std::system_error(errno, std::system_category(),
                          std::string("cannot ") + action + " \"" + path + "\"");
}

void throw_failure(const char* action, const char* path) {
  throw std::runtime_error(std::string("cannot ") + action + " \"" + path + "\"");
}

std::FILE* open_stdio(const char* path, char* buffer, std::size_t buffer_size) {
  std::FILE* file = std::fopen(path, "w");
  if (file == nullptr) throw_errno("fopen", path);
  if (buffer != nullptr && std::setvbuf(file, buffer, _IOFBF, buffer_size) != 0) {
    std::fclose(file);
    throw_failure("setvbuf", path);
  }
  return file;
}

void close_stdio(std::FILE* file, const char* path) {
  bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) throw_errno("write (stdio)", path);
}

void open_ofstream(std::ofstream& out, const char* path, char* buffer, std::size_t buffer_size) {
  if (buffer != nullptr)
    out.rdbuf()->pubsetbuf(buffer, static_cast<std::streamsize>(buffer_size));
  out.open(path, std::ios::out | std::ios::binary | std::ios::trunc);
  if (!out.is_open()) throw_errno("open (ofstream)", path);
}

void close_ofstream(std::ofstream& out, const char* path) {
  bool failed = !out.good();
  out.close();
  if (failed || out.fail()) throw_failure("write (ofstream)", path);
}

int open_fd(const char* path) {
  int fd;
  do {
    fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw_errno("open", path);
  return fd;
}

void write_all(int fd, const char* data, std::size_t size, const char* path) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    if (written == 0) {
      errno = EIO;
      throw_errno("write", path);
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

void close_fd(int fd, const char* path) {
  if (::close(fd) != 0 && errno != EINTR) throw_errno("close", path);
}

}  // namespace fastout_bench
