// SPDX-License-Identifier: MIT
// One printf call's text on its way into the writer (printf_internal.h's
// output): the writer's free space while the text fits, the writer's piece
// from the first time it does not.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>

#include <fastout/file.h>

#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {

// While the call's text fits in the writer's free space (file::room(),
// open whenever the writer takes inline writes), it is written there and
// committed at the end (file::commit_room()), as a bounded print is. The
// first time it needs more room, or from the start where the free space is
// closed (no buffer, line buffering, an error, a loan: begin_piece() then
// throws or takes the space back), it becomes the writer's piece, whose
// text begins where the call's began.
output::output(file& writer) : writer_(writer) {
  const buffer_state free_space = writer_of(writer).room();
  start_ = free_space.pos;
  end_ = free_space.limit;
  if (FASTOUT_UNLIKELY(start_ == end_)) begin_piece(start_);
}

char* output::begin_piece(char* pos) {
  const auto length = static_cast<std::size_t>(pos - start_);
  piece_ = writer_of(writer_).begin_piece(spare_, sizeof spare_);
  // A writer with no buffer: the piece streams through spare_, on the
  // stack, rather than the writer's streaming area (no allocation).
  if (piece_.place == piece_place::spare) piece_.place = piece_place::side_streaming;
  // The free space begins where the call's text does, so this moves
  // nothing; but the text must be where the piece is.
  if (length != 0 && piece_.text != start_) std::memmove(piece_.text, start_, length);
  start_ = piece_.text;
  end_ = piece_.end;
  in_piece_ = true;
  return start_ + length;
}

char* output::make_room(char* pos, std::size_t size) {
  if (!in_piece_) {
    pos = begin_piece(pos);
    if (size <= room(pos)) return pos;
  }
  piece_.text = start_;
  pos = writer_of(writer_).grow_piece(piece_, pos, size);
  sent_ = piece_.sent;
  start_ = piece_.text;
  end_ = piece_.end;
  return pos;
}

std::size_t output::next_chunk(char*& pos, std::size_t size) {
  for (;;) {
    const std::size_t space = room(pos);
    if (space != 0 && !((!in_piece_ || piece_.place == piece_place::buffer) && size > space))
      return std::min(size, space);
    pos = make_room(pos, size);
  }
}

char* output::append_slow(char* pos, const char* data, std::size_t size) {
  while (size > 0) {
    const std::size_t chunk = next_chunk(pos, size);
    std::memcpy(pos, data, chunk);
    pos += chunk;
    data += chunk;
    size -= chunk;
  }
  return pos;
}

char* output::fill(char* pos, char c, std::size_t size) {
  while (size > 0) {
    const std::size_t chunk = next_chunk(pos, size);
    std::memset(pos, c, chunk);
    pos += chunk;
    size -= chunk;
  }
  return pos;
}

int output::finish(char* pos) {
  const std::size_t total = count(pos);
  if (FASTOUT_UNLIKELY(total > static_cast<std::size_t>(INT_MAX))) return fail(pos, EOVERFLOW);
  if (FASTOUT_LIKELY(!in_piece_)) {
    writer_of(writer_).commit_room(pos);
  } else {
    piece_.text = start_;
    writer_of(writer_).end_piece(piece_, pos);
  }
  return static_cast<int>(total);
}

int output::fail(char* pos, int error_number) {
  if (in_piece_ && sent_ != 0) {
    piece_.text = start_;
    writer_of(writer_).end_piece(piece_, pos);
  }
  return -error_number;
}

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
