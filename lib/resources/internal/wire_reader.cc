#include "lib/resources/internal/wire_reader.h"

namespace xdsfed {
namespace resources {
namespace wire {

namespace {

// One code point at a time (RFC 3629 §4 / Unicode Table 3-7 byte ranges).
bool IsValidUtf8Slow(const uint8_t* p, const uint8_t* end) {
  while (p < end) {
    const uint8_t c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int more;
    uint8_t lo = 0x80;
    uint8_t hi = 0xBF;
    if (c < 0xC2) {
      return false;  // a continuation byte, or an overlong 2-byte form
    } else if (c < 0xE0) {
      more = 1;
    } else if (c < 0xF0) {
      more = 2;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c < 0xF5) {
      more = 3;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return false;
    }
    if (end - p <= more) return false;
    if (p[1] < lo || p[1] > hi) return false;
    for (int i = 2; i <= more; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) return false;
    }
    p += more + 1;
  }
  return true;
}

}  // namespace

bool IsValidUtf8Slow(absl::string_view s) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  return IsValidUtf8Slow(p, p + s.size());
}

bool Reader::ReadVarintSlow(int max_bytes, uint64_t* v) {
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p_ + i >= end_) return false;
    const uint8_t b = p_[i];
    // The 10th byte carries bit 63 only; larger values are refused here
    // (libprotobuf drops the extra bits) so the two never disagree.
    if (i == 9 && b > 1) return false;
    result |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (b < 0x80) {
      p_ += i + 1;
      *v = result;
      return true;
    }
  }
  return false;
}

bool SkipMessage(absl::string_view bytes) {
  Reader r(bytes);
  while (!r.done()) {
    Tag tag;
    if (!r.ReadTag(&tag) || !r.Skip(tag.type)) return false;
  }
  return true;
}

}  // namespace wire
}  // namespace resources
}  // namespace xdsfed
