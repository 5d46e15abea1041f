// The hash of a normalized name (NormalizedNameView::hash), with a
// per-process seed (as absl::Hash has) and separate seeds for old-style and
// new-style names so that they never share a value by construction.
//
// Old-style names: HashBytes over the whole name. New-style canonical names:
// the bytes before the first '?' as HashBytes would take them, plus the sum
// of a hash per context param ("k=v" piece of the query), so that the hash
// does not depend on the params' order: a lookup can hash a name whose
// params are out of order without sorting a copy of it first
// (CanonicalGuess).
//
// Bytes are taken in 16-byte blocks so that a scan over a name can hash it
// in the same pass (one load per block serves both). Per block, in each
// 64-bit lane: acc += lo32(x ^ key) * hi32(x ^ key) + the other lane of x,
// then key += step, so that a block's contribution depends on its position
// (the XXH3 accumulator shape, with a running key instead of a key table).
// 64x64->128-bit multiply-folds finish it, so every output bit depends on
// both lanes. Quality: tests/name/name_hash_test.cc (collisions and the
// distribution of the bits a hash table uses).
#ifndef XDSFED_LIB_NAME_INTERNAL_NAME_HASH_H_
#define XDSFED_LIB_NAME_INTERNAL_NAME_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"

namespace xdsfed::name_internal {

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t ProcessSeed() {
  // The address of a global differs between runs (ASLR), like absl's seed.
  static const char kSeedAnchor = 0;
  return reinterpret_cast<uintptr_t>(&kSeedAnchor);
}

inline constexpr uint64_t kMul0 = 0xa0761d6478bd642full;
inline constexpr uint64_t kMul1 = 0xe7037ed1a0b428dbull;
inline constexpr uint64_t kMul2 = 0x8ebc6af09c88c6e3ull;
inline constexpr uint64_t kMul3 = 0x589965cc75374cc3ull;
inline constexpr uint64_t kStep0 = 0x9e3779b97f4a7c15ull;
inline constexpr uint64_t kStep1 = 0xc2b2ae3d27d4eb4full;

// Hash state over a name's 16-byte blocks, fed in order (see HashBytes for
// which blocks). Copyable: a scan may keep the state at a block and resume
// from it over other bytes.
class BlockHash {
 public:
  // The state before any block (computed once per process).
  static BlockHash Start(bool old_style) {
    static const BlockHash kStart[2] = {BlockHash(false), BlockHash(true)};
    return kStart[old_style ? 1 : 0];
  }

#ifdef __SSE2__
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(__m128i x) {
    const __m128i d = _mm_xor_si128(x, key_);
    // Per lane: low 32 bits times high 32 bits of d.
    const __m128i product =
        _mm_mul_epu32(d, _mm_shuffle_epi32(d, _MM_SHUFFLE(2, 3, 0, 1)));
    const __m128i swapped = _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2));
    acc_ = _mm_add_epi64(acc_, _mm_add_epi64(product, swapped));
    key_ = _mm_add_epi64(key_, _mm_set_epi64x(static_cast<int64_t>(kStep1),
                                              static_cast<int64_t>(kStep0)));
  }
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(const char* p) {
    Add(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
#else
  void Add(const char* p) {
    uint64_t x[2];
    std::memcpy(x, p, 16);
    for (int lane = 0; lane < 2; ++lane) {
      const uint64_t d = x[lane] ^ key_[lane];
      acc_[lane] += (d & 0xFFFFFFFFu) * (d >> 32) + x[1 - lane];
    }
    key_[0] += kStep0;
    key_[1] += kStep1;
  }
#endif

  // n: the name's length (the blocks alone do not say it when n % 16 != 0);
  // params: the sum of ParamHash over a new-style name's params (0 if none).
  ABSL_ATTRIBUTE_ALWAYS_INLINE size_t Finish(size_t n,
                                             uint64_t params = 0) const {
#ifdef __SSE2__
    const uint64_t a0 = static_cast<uint64_t>(_mm_cvtsi128_si64(acc_));
    const uint64_t a1 = static_cast<uint64_t>(
        _mm_cvtsi128_si64(_mm_unpackhi_epi64(acc_, acc_)));
#else
    const uint64_t a0 = acc_[0], a1 = acc_[1];
#endif
    const uint64_t h = Mix(a0 ^ kMul2 ^ params, a1 ^ kMul3 ^ (n * kMul1));
    return static_cast<size_t>(Mix(h ^ a1, kMul1 ^ 0x2d358dccaa6c78a5ull));
  }

 private:
  explicit BlockHash(bool old_style) {
    const uint64_t seed = ProcessSeed() ^ (old_style ? kMul2 : 0);
    const uint64_t acc0 = seed ^ kMul0, acc1 = seed ^ kMul1;
    const uint64_t key0 = Mix(seed, kMul2), key1 = Mix(seed ^ kMul3, kMul0);
#ifdef __SSE2__
    acc_ =
        _mm_set_epi64x(static_cast<int64_t>(acc1), static_cast<int64_t>(acc0));
    key_ =
        _mm_set_epi64x(static_cast<int64_t>(key1), static_cast<int64_t>(key0));
#else
    acc_[0] = acc0;
    acc_[1] = acc1;
    key_[0] = key0;
    key_[1] = key1;
#endif
  }

#ifdef __SSE2__
  __m128i acc_, key_;
#else
  uint64_t acc_[2], key_[2];
#endif
};

// Adds the blocks of s[0, n) after its whole ones, which h has taken: if
// n % 16 != 0, the 16 bytes ending at n (overlapping the block before); a
// string shorter than 16 bytes is one block made of overlapping loads.
// Nothing outside s is read.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddTail(BlockHash& h, const char* s,
                                                 size_t n) {
  if (n >= 16) {
    if (n % 16 != 0) h.Add(s + n - 16);
    return;
  }
  uint64_t block[2] = {0, 0};
  if (n >= 8) {
    std::memcpy(&block[0], s, 8);
    std::memcpy(&block[1], s + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    block[0] = a;
    block[1] = b;
  } else if (n > 0) {
    block[0] = (uint64_t{static_cast<uint8_t>(s[0])} << 16) |
               (uint64_t{static_cast<uint8_t>(s[n / 2])} << 8) |
               static_cast<uint8_t>(s[n - 1]);
  }
  char bytes[16];
  std::memcpy(bytes, block, 16);
  h.Add(bytes);
}

// BlockHash over s[0, n): its whole blocks, then AddTail.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline BlockHash HashBlocks(const char* s,
                                                         size_t n,
                                                         bool old_style) {
  BlockHash h = BlockHash::Start(old_style);
  for (size_t k = 0; k + 16 <= n; k += 16) h.Add(s + k);
  AddTail(h, s, n);
  return h;
}

// The hash of an old-style name (the whole name).
inline size_t HashBytes(absl::string_view s, bool old_style) {
  return HashBlocks(s.data(), s.size(), old_style).Finish(s.size());
}

// The hash of one context param, "k=v" as in the canonical name: summed
// over the params, so it must be well mixed on its own.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t ParamHash(const char* p,
                                                       size_t n) {
  uint64_t h = ProcessSeed() ^ kMul3 ^ (n * kMul0);
  while (n > 16) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h = Mix(a ^ kMul0 ^ h, b ^ kMul1);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = uint64_t{y} << 32;
  } else if (n > 0) {
    a = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
        (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) |
        static_cast<uint8_t>(p[n - 1]);
  }
  return Mix(a ^ kMul0 ^ h, b ^ kMul2);
}

// The hash of a new-style canonical name of n bytes whose first '?' is at
// q (n if it has no query) and whose params' ParamHash sum to params.
inline size_t HashNewStyle(const char* s, size_t q, size_t n, uint64_t params) {
  return HashBlocks(s, q, /*old_style=*/false).Finish(n, params);
}

}  // namespace xdsfed::name_internal

#endif  // XDSFED_LIB_NAME_INTERNAL_NAME_HASH_H_
