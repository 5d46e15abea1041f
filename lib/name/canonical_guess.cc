// CanonicalGuess: the lookup side of the name hot path (see the header for
// why a match is exact). One pass over the name's 16-byte blocks hashes the
// bytes before the first '?' and finds it; a second look at the few blocks
// after it finds the '&'s. Nothing is copied: the params are hashed one by
// one (their hashes are summed, so their order does not matter) and only
// their offsets are sorted.
#include "lib/name/canonical_guess.h"

#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/base/attributes.h"
#include "lib/name/internal/bytes.h"
#include "lib/name/internal/char_class.h"
#include "lib/name/internal/name_hash.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace {

inline size_t KeyLen(const char* s, uint32_t begin, uint32_t len) {
  const void* eq = std::memchr(s + begin, '=', len);
  return eq == nullptr ? len : static_cast<const char*>(eq) - (s + begin);
}

// The next decoded byte of key [p, end) ("%XX" with two hex digits is one
// byte; anything else stands for itself), advancing p.
inline int NextDecoded(const char*& p, const char* end) {
  const char c = *p++;
  if (c == '%' && end - p >= 2 &&
      name_internal::HasClass(p[0], name_internal::kHexDigit) &&
      name_internal::HasClass(p[1], name_internal::kHexDigit)) {
    const int b =
        name_internal::HexValue(p[0]) * 16 + name_internal::HexValue(p[1]);
    p += 2;
    return b;
  }
  return static_cast<uint8_t>(c);
}

// CompareKeys when the first bytes do not settle it.
template <typename Piece>
ABSL_ATTRIBUTE_NOINLINE int CompareDecodedKeys(const char* s, const Piece& a,
                                               const Piece& b) {
  const char* pa = s + a.begin;
  const char* pb = s + b.begin;
  const char* const ea = pa + KeyLen(s, a.begin, a.len);
  const char* const eb = pb + KeyLen(s, b.begin, b.len);
  while (pa < ea && pb < eb) {
    const int da = NextDecoded(pa, ea), db = NextDecoded(pb, eb);
    if (da != db) return da < db ? -1 : 1;
  }
  return pa == ea ? (pb == eb ? 0 : -1) : 1;
}

// <0, 0, >0 as piece a's key (its bytes up to the first '=') sorts before,
// equal to or after b's, comparing decoded keys as unsigned bytes: the
// canonical order. Pieces are never empty.
template <typename Piece>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline int CompareKeys(const char* s,
                                                    const Piece& a,
                                                    const Piece& b) {
  const uint8_t ca = static_cast<uint8_t>(s[a.begin]);
  const uint8_t cb = static_cast<uint8_t>(s[b.begin]);
  // Usually settled by the first bytes: different, and neither ends a key
  // nor starts an escape.
  if (ca != cb && ca != '=' && cb != '=' && ca != '%' && cb != '%') {
    return ca < cb ? -1 : 1;
  }
  return CompareDecodedKeys(s, a, b);
}

}  // namespace

bool CanonicalGuess::Guess(absl::string_view raw, bool federation) {
  const size_t n = raw.size();
  if (!federation || n < 16 || n > kMaxResourceNameLength ||
      std::memcmp(raw.data(), "xdstp://", 8) != 0) {
    return false;
  }
#ifndef __SSE2__
  // Without SSE2 the scans below have no cheap form: callers normalize.
  return false;
#else
  const char* const s = raw.data();
  raw_ = s;
  n_ = static_cast<uint32_t>(n);

  // Pass 1: hash the whole blocks before the one holding the first '?' (a
  // canonical path has none: it starts the query), testing two at a time.
  name_internal::BlockHash h =
      name_internal::BlockHash::Start(/*old_style=*/false);
  const __m128i question = _mm_set1_epi8('?');
  const char* p = s;
  const char* const whole_end = s + (n & ~size_t{15});
  for (; p + 32 <= whole_end; p += 32) {
    const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i x1 =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x0, question),
                                       _mm_cmpeq_epi8(x1, question))) != 0) {
      break;
    }
    h.Add(x0);
    h.Add(x1);
  }
  unsigned qm = 0;  // '?' bits of the block at p
  for (; p < whole_end; p += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    qm = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, question)));
    if (qm != 0) break;
    h.Add(x);
  }
  if (qm == 0 && n % 16 != 0) {
    // The block ending at n: only its last n % 16 bytes are new.
    p = s + n - 16;
    qm = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
             _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), question))) &
         (0xFFFFu << (16 - n % 16));
  }
  if (qm == 0) {  // no query: h has every whole block
    name_internal::AddTail(h, s, n);
    query_ = n_;
    count_ = 0;
    sorted_ = true;
    hash_ = h.Finish(n);
    return true;
  }
  const size_t at = static_cast<size_t>(p - s);
  const size_t q = at + static_cast<size_t>(__builtin_ctz(qm));
  query_ = static_cast<uint32_t>(q);
  name_internal::AddTail(h, s, q);  // h has the whole blocks before q

  // Pass 2: the '&'s after the '?'.
  uint32_t ends[kMaxParams];  // of the pieces but the last
  size_t amp_count = 0;
  const __m128i amp = _mm_set1_epi8('&');
  auto amp_bits = [&](const char* b) -> uint64_t {
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), amp)));
  };
  if (n >= 64 && q + 64 >= n) {
    // The usual short query: the name's last 64 bytes in one word.
    const char* const last = s + n - 64;
    uint64_t amps = amp_bits(last) | amp_bits(last + 16) << 16 |
                    amp_bits(last + 32) << 32 | amp_bits(last + 48) << 48;
    amps &= ~uint64_t{0} << (q - (n - 64)) << 1;  // after the '?'
    for (; amps != 0; amps &= amps - 1) {
      if (amp_count == kMaxParams - 1) return false;
      ends[amp_count++] = static_cast<uint32_t>(
          n - 64 + static_cast<size_t>(__builtin_ctzll(amps)));
    }
  } else {
    // Blocks from the '?' one on; the last one ends at n and may overlap
    // the one before (its old bytes are masked off).
    for (size_t b = at; b < n; b += 16) {
      const size_t load = b + 16 <= n ? b : n - 16;
      unsigned m = static_cast<unsigned>(amp_bits(s + load)) >> (b - load);
      if (b == at) m &= ~0u << (q - at) << 1;  // after the '?'
      for (; m != 0; m &= m - 1) {
        if (amp_count == kMaxParams - 1) return false;
        ends[amp_count++] =
            static_cast<uint32_t>(b + static_cast<size_t>(__builtin_ctz(m)));
      }
    }
  }
  ends[amp_count] = static_cast<uint32_t>(n);
  // The pieces, and the sum of their hashes. An empty one (canonical names
  // have none) would have no first byte to compare.
  uint32_t begin = static_cast<uint32_t>(q + 1);
  uint64_t params = 0;
  const size_t count = amp_count + 1;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t len = ends[i] - begin;
    if (len == 0) return false;
    pieces_[i] = Piece{begin, len};
    params += name_internal::ParamHash(s + begin, len);
    begin = ends[i] + 1;
  }
  count_ = static_cast<uint32_t>(count);
  hash_ = h.Finish(n, params);

  // Order the pieces' offsets by key for Matches(): insertion sort, one
  // compare per piece when they are in order already. A key given twice is
  // left to Normalize()'s last-wins rule.
  sorted_ = true;
  for (size_t i = 1; i < count; ++i) {
    const int first = CompareKeys(s, pieces_[i - 1], pieces_[i]);
    if (first < 0) continue;
    if (first == 0) return false;
    sorted_ = false;
    const Piece x = pieces_[i];
    size_t j = i - 1;
    pieces_[i] = pieces_[j];
    for (; j > 0; --j) {
      const int cmp = CompareKeys(s, x, pieces_[j - 1]);
      if (cmp == 0) return false;
      if (cmp > 0) break;
      pieces_[j] = pieces_[j - 1];
    }
    pieces_[j] = x;
  }
  return true;
#endif
}

bool CanonicalGuess::Matches(absl::string_view canonical) const {
  if (canonical.size() != n_) return false;
  const char* const e = canonical.data();
  if (sorted_) return name_internal::SameBytes(e, raw_, n_);
  // raw's bytes up to the '?', then its pieces in key order, '&' between.
  size_t pos = query_ + 1;
  if (!name_internal::SameBytes(e, raw_, pos)) return false;
  for (uint32_t i = 0; i < count_; ++i) {
    const Piece& p = pieces_[i];
    if (i != 0) {
      if (e[pos] != '&') return false;
      ++pos;
    }
    if (!name_internal::SameBytes(e + pos, raw_ + p.begin, p.len)) {
      return false;
    }
    pos += p.len;
  }
  return true;
}

}  // namespace xdsfed
