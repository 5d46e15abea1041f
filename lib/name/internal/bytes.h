// Short-string moves, scans and compares for the name hot path, inline: the
// pieces of a name are 1 to ~200 bytes, where a libc call costs more than
// the work. None of them reads or writes outside the ranges it is given.
#ifndef XDSFED_LIB_NAME_INTERNAL_BYTES_H_
#define XDSFED_LIB_NAME_INTERNAL_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/base/attributes.h"

namespace xdsfed::name_internal {

// memcpy of [src, src + len) to dst with overlapping 16- / 8- / 4-byte moves.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CopyPiece(char* dst, const char* src,
                                                   size_t len) {
  if (len >= 16) {
#ifdef __SSE2__
    for (size_t i = 0; i + 16 < len; i += 16) {
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(dst + i),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    }
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(dst + len - 16),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + len - 16)));
#else
    std::memcpy(dst, src, len);
#endif
  } else if (len >= 8) {
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + len - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + len - 8, &b, 8);
  } else if (len >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + len - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + len - 4, &b, 4);
  } else {
    for (size_t i = 0; i < len; ++i) dst[i] = src[i];
  }
}

// a[0, len) == b[0, len): 64 bytes per test, the tail as overlapping
// 16-byte blocks; under 16 bytes, two overlapping 8- or 4-byte words.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameBytes(const char* a, const char* b,
                                                   size_t len) {
#ifdef __SSE2__
  if (len >= 16) {
    auto eq = [&](size_t i) {
      return _mm_cmpeq_epi8(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    };
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
      const __m128i all = _mm_and_si128(_mm_and_si128(eq(i), eq(i + 16)),
                                        _mm_and_si128(eq(i + 32), eq(i + 48)));
      if (_mm_movemask_epi8(all) != 0xFFFF) return false;
    }
    __m128i all = eq(len - 16);
    for (; i + 16 < len; i += 16) all = _mm_and_si128(all, eq(i));
    return _mm_movemask_epi8(all) == 0xFFFF;
  }
#else
  if (len >= 16) return std::memcmp(a, b, len) == 0;
#endif
  if (len >= 8) {
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&a1, a + len - 8, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&b1, b + len - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (len >= 4) {
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&a1, a + len - 4, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&b1, b + len - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  for (size_t i = 0; i < len; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace xdsfed::name_internal

#endif  // XDSFED_LIB_NAME_INTERNAL_BYTES_H_
