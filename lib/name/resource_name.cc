#include "lib/name/resource_name.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/name/internal/bytes.h"
#include "lib/name/internal/char_class.h"
#include "lib/name/internal/name_hash.h"
#include "lib/name/percent_encoding.h"

namespace xdsfed {
namespace {

using name_internal::CopyPiece;
using name_internal::HasClass;
using name_internal::kCharClass;

constexpr absl::string_view kXdstpScheme = "xdstp:";
constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

absl::Status NameError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invalid xdstp name: ", what));
}

absl::Status BadEscapeError(size_t offset) {
  return NameError(absl::StrCat("invalid percent-encoding at offset ", offset,
                                ": expected two hex digits after '%'"));
}

absl::Status BadByteError(char c, size_t offset, absl::string_view component) {
  return NameError(absl::StrCat(
      "byte 0x", absl::Hex(static_cast<uint8_t>(c), absl::kZeroPad2),
      " at offset ", offset, " not allowed in ", component,
      "; expected RFC 3986 ", component, " characters or %XX"));
}

inline char UpperHex(char c) {
  return c >= 'a' ? static_cast<char>(c - 32) : c;
}

inline bool IsHex(char c) { return HasClass(c, name_internal::kHexDigit); }

#ifdef __SSE2__
// Bit i set: byte i of x is ALPHA, DIGIT, '-', '.' or '_': bytes that are
// in every component's class and make up most of every name. A range test
// is an add and a signed compare.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline unsigned PlainMask(__m128i x) {
  const __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
  const __m128i alpha = _mm_cmplt_epi8(
      _mm_add_epi8(lower, _mm_set1_epi8(128 - 'a')), _mm_set1_epi8(-128 + 26));
  const __m128i digit = _mm_cmplt_epi8(
      _mm_add_epi8(x, _mm_set1_epi8(128 - '0')), _mm_set1_epi8(-128 + 10));
  const __m128i dash_dot = _mm_cmplt_epi8(
      _mm_add_epi8(x, _mm_set1_epi8(128 - '-')), _mm_set1_epi8(-128 + 2));
  const __m128i underscore = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
      _mm_or_si128(alpha, digit), _mm_or_si128(dash_dot, underscore))));
}
#endif

// memcpy for the short pieces of a name, in 16-byte moves: both buffers have
// 16 bytes of slack, so the last move may run past len.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void MoveShort(char* dst, const char* src,
                                                   size_t len) {
#ifdef __SSE2__
  // Most pieces fit in one move; test for more only after it.
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  for (size_t i = 16; i < len; i += 16) {
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(dst + i),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
#else
  std::memcpy(dst, src, len);
#endif
}

// a == b for the short strings of a name (types: 30 to 50 bytes), inline:
// overlapping 16-byte compares, no read outside either string.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool EqualBytes(const char* a, size_t len,
                                                    absl::string_view b) {
  if (len != b.size()) return false;
#ifdef __SSE2__
  if (len >= 16 && len <= 48) {
    // Three compares cover 16 to 48 bytes: no loop, no length-dependent
    // branch.
    const char* const q = b.data();
    auto eq16 = [&](size_t i) {
      return _mm_cmpeq_epi8(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)));
    };
    const __m128i all = _mm_and_si128(_mm_and_si128(eq16(0), eq16(len / 2 - 8)),
                                      eq16(len - 16));
    return _mm_movemask_epi8(all) == 0xFFFF;
  }
#endif
  return std::memcmp(a, b.data(), len) == 0;
}

// Where the plain bytes of the padded name are (PlainMask per 16-byte
// block, and the '/' bytes), computed in one pass before parsing: the loads
// are independent, so the pass runs at full width, and finding the end of a
// run is then a shift and a count instead of a dependent load-compare chain.
struct PlainIndex {
  const char* base;
  const uint16_t* plain;  // bit i of [k]: base[16k + i] is plain
  const uint16_t* slash;  // bit i of [k]: base[16k + i] is '/'
};

// Copies bytes of class `cls` from p to o, and canonicalizes escapes: one
// whose byte is in `out_cls` becomes that byte, any other keeps its "%XX"
// with upper-case hex (counted in *escapes). Stops at the first other byte
// (or, with kStopAtSlash, at an escaped '/') and returns where it stopped;
// returns nullptr on a malformed escape, with *bad pointing at it.
//
// p must point into the padded copy of the name (16 NUL bytes after it, and
// NUL is in no class), and o must have 64 bytes of slack: runs are moved 16
// bytes at a time.
template <bool kStopAtSlash, bool kSlashPlain>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* CopyCanonical(
    const PlainIndex& index, const char* p, uint16_t cls, uint16_t out_cls,
    char*& o, const char** bad, int* escapes) {
  for (;;) {
#ifdef __SSE2__
    {
      // 49 to 64 bits of the index from p on; a run that fills the window
      // ends at its last bit and continues through the byte test below.
      const size_t pos = static_cast<size_t>(p - index.base);
      uint64_t w;
      std::memcpy(&w, index.plain + pos / 16, 8);
      if (kSlashPlain) {
        uint64_t slash;
        std::memcpy(&slash, index.slash + pos / 16, 8);
        w |= slash;
      }
      w >>= pos % 16;
      const unsigned run =
          static_cast<unsigned>(__builtin_ctzll(~w | (uint64_t{1} << 63)));
      MoveShort(o, p, run);
      p += run;
      o += run;
    }
#else
    while (kCharClass[static_cast<uint8_t>(*p)] & cls) *o++ = *p++;
#endif
    const char c = *p;
    if (kCharClass[static_cast<uint8_t>(c)] & cls) {
      *o++ = c;
      ++p;
      continue;
    }
    if (c != '%') return p;
    if (!IsHex(p[1]) || !IsHex(p[2])) {  // the padding makes p[1..2] safe
      *bad = p;
      return nullptr;
    }
    const char b = static_cast<char>(name_internal::HexValue(p[1]) * 16 +
                                     name_internal::HexValue(p[2]));
    if (kStopAtSlash && b == '/') return p;
    if (HasClass(b, out_cls)) {
      *o++ = b;
    } else {
      o[0] = '%';
      o[1] = UpperHex(p[1]);
      o[2] = UpperHex(p[2]);
      o += 3;
      ++*escapes;
    }
    p += 3;
  }
}

// Decodes a canonical component (all escapes known to be well formed).
char* DecodeCanonical(absl::string_view s, char* o) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      *o++ = static_cast<char>(name_internal::HexValue(s[i + 1]) * 16 +
                               name_internal::HexValue(s[i + 2]));
      i += 2;
    } else {
      *o++ = s[i];
    }
  }
  return o;
}

// True if canonical (percent-encoded) `canon` decodes to `decoded`.
bool CanonicalEquals(absl::string_view canon, absl::string_view decoded) {
  size_t i = 0;
  for (char c : decoded) {
    if (i >= canon.size()) return false;
    if (canon[i] == '%') {
      if (i + 2 >= canon.size() ||
          static_cast<char>(name_internal::HexValue(canon[i + 1]) * 16 +
                            name_internal::HexValue(canon[i + 2])) != c) {
        return false;
      }
      i += 3;
    } else {
      if (canon[i] != c) return false;
      ++i;
    }
  }
  return i == canon.size();
}

template <typename P>
inline bool ParamLess(const P& a, const P& b) {
  // Keys usually differ in their first byte: settle that without a call.
  if (a.key_len > 0 && b.key_len > 0 && a.key[0] != b.key[0]) {
    return static_cast<uint8_t>(a.key[0]) < static_cast<uint8_t>(b.key[0]);
  }
  const int c = std::memcmp(a.key, b.key, std::min(a.key_len, b.key_len));
  if (c != 0) return c < 0;
  if (a.key_len != b.key_len) return a.key_len < b.key_len;
  return a.order < b.order;
}

inline bool SameKey(absl::string_view a, absl::string_view b) { return a == b; }

#ifdef __SSE2__
// Bytes of 16 at x that the fast path must look at: bit i of *other is set
// if byte i is not ALPHA DIGIT '-' '.' '_' '/', bit i of *slash if it is '/'.
// '-' '.' '/' and the digits are one range (0x2D-0x39).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline unsigned OtherMask(__m128i x) {
  const __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
  const __m128i alpha = _mm_cmplt_epi8(
      _mm_add_epi8(lower, _mm_set1_epi8(128 - 'a')), _mm_set1_epi8(-128 + 26));
  const __m128i dash_to_nine = _mm_cmplt_epi8(
      _mm_add_epi8(x, _mm_set1_epi8(128 - '-')), _mm_set1_epi8(-128 + 13));
  const __m128i underscore = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
  const unsigned known = static_cast<unsigned>(_mm_movemask_epi8(
      _mm_or_si128(_mm_or_si128(alpha, dash_to_nine), underscore)));
  return ~known & 0xFFFFu;
}
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void Classify(__m128i x, unsigned* other,
                                                  unsigned* slash) {
  *other = OtherMask(x);
  *slash = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('/'))));
}
#endif

// Most context params a name may have to take the fast path.
constexpr size_t kMaxFastParams = 16;
// Longest name the fast path takes (its bitmaps live on the stack).
constexpr size_t kMaxFastLength = 1024;

// One "key=value" piece of a simple query: offsets into the name.
struct FastParam {
  uint32_t begin;    // the key's first byte
  uint32_t key_len;  // up to the '='
  uint32_t len;      // up to the '&' or the end
};

// Compares the keys of two pieces of name s (raw keys are their decoded
// keys: the fast path takes no escapes).
inline int CompareFastKeys(const char* s, const FastParam& a,
                           const FastParam& b) {
  const uint8_t ca = static_cast<uint8_t>(s[a.begin]);
  const uint8_t cb = static_cast<uint8_t>(s[b.begin]);
  if (ca != cb) return ca < cb ? -1 : 1;
  const int c =
      std::memcmp(s + a.begin, s + b.begin, std::min(a.key_len, b.key_len));
  if (c != 0) return c;
  return a.key_len == b.key_len ? 0 : (a.key_len < b.key_len ? -1 : 1);
}

}  // namespace

size_t HashNameParts(bool old_style, absl::string_view authority,
                     absl::string_view type, absl::string_view key) {
  if (old_style) return name_internal::HashBytes(key, /*old_style=*/true);
  const std::string canonical =
      absl::StrCat("xdstp://", authority, "/", type, "/", key);
  // A canonical path has no raw '?', and a canonical param no raw '&'.
  const size_t q = std::min(canonical.find('?'), canonical.size());
  uint64_t params = 0;
  for (size_t begin = q + 1; begin < canonical.size();) {
    const size_t end = std::min(canonical.find('&', begin), canonical.size());
    params += name_internal::ParamHash(canonical.data() + begin, end - begin);
    begin = end + 1;
  }
  return name_internal::HashNewStyle(canonical.data(), q, canonical.size(),
                                     params);
}

bool TypeSegmentMatches(absl::string_view canonical_type,
                        absl::string_view expected_type) {
  absl::ConsumePrefix(&expected_type, kTypeUrlPrefix);
  // Without an escape a canonical segment is its decoded form (type names
  // usually are plain bytes).
  if (canonical_type.find('%') == absl::string_view::npos) {
    return canonical_type == expected_type;
  }
  return CanonicalEquals(canonical_type, expected_type);
}

NameNormalizer::NameNormalizer() { params_.reserve(16); }

absl::StatusOr<NormalizedNameView> NameNormalizer::Normalize(
    absl::string_view raw, bool federation, absl::string_view expected_type) {
  // A47 §Temporary environment variable protection: with the gate off, and
  // for any name not starting with "xdstp:", the name is one opaque string.
  if (!federation || raw.size() < kXdstpScheme.size() ||
      std::memcmp(raw.data(), kXdstpScheme.data(), kXdstpScheme.size()) != 0) {
    NormalizedNameView v;
    v.old_style = true;
    v.id = raw;
    v.key = raw;
    v.normalized = raw;
    v.hash = name_internal::HashBytes(raw, /*old_style=*/true);
    return v;
  }
  NormalizedNameView v;
  if (NormalizeFast(raw, expected_type, &v)) return v;
  return NormalizeXdstp(raw, expected_type);
}

void NameNormalizer::Grow(size_t need) {
  buf_.reset(new char[need]);
  cap_ = need;
}

bool NameNormalizer::NormalizeInto(absl::string_view raw, bool federation,
                                   absl::string_view expected_type,
                                   NormalizedNameView* out) {
  if (federation && raw.size() >= 16 &&
      std::memcmp(raw.data(), "xdstp://", 8) == 0 &&
      NormalizeFast(raw, expected_type, out)) {
    return true;
  }
  absl::StatusOr<NormalizedNameView> v =
      Normalize(raw, federation, expected_type);
  if (!v.ok()) return false;
  *out = *v;
  return true;
}

bool NameNormalizer::NormalizeFast(absl::string_view raw,
                                   absl::string_view expected_type,
                                   NormalizedNameView* v) {
#ifndef __SSE2__
  return false;
#else
  using name_internal::kAuthority;
  using name_internal::kPath;
  using name_internal::kQueryPart;
  using name_internal::kSegment;
  // Takes "xdstp://authority/type/id[?k=v&...]" whose bytes all stand for
  // themselves in the canonical form: no '%', no '#', no byte outside its
  // component's class, a non-empty type, an id after a '/', and (if there
  // is a query) only non-empty keys each with one '=', no key twice. Such a
  // name is canonical but for the order of its params; everything else goes
  // to NormalizeXdstp, whose result this path must equal byte for byte.
  const size_t n = raw.size();
  if (n < 16 || n > kMaxFastLength || raw[6] != '/' || raw[7] != '/') {
    return false;
  }
  const char* const s = raw.data();

  // Pass 1, at full width (independent loads): per 64 bytes, a bit for
  // each byte that is not plain (ALPHA DIGIT '-' '.' '_' '/') and one for
  // each '/'. The name's last 16 bytes are loaded as one block and shifted,
  // so nothing is read past its end.
  // Each block is also stored to scratch as it goes by: if the params need
  // sorting, the name's copy is then already made.
  uint64_t other[kMaxFastLength / 64 + 1];
  uint64_t slash[kMaxFastLength / 64 + 1];
  const size_t words = (n + 63) / 64;
  char* const out = Scratch(n);
  {
    size_t w = 0;
    for (; 64 * w + 64 <= n; ++w) {
      unsigned o[4], h[4];
      for (int b = 0; b < 4; ++b) {
        const __m128i x = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(s + 64 * w + 16 * b));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 64 * w + 16 * b), x);
        Classify(x, &o[b], &h[b]);
      }
      other[w] = o[0] | (uint64_t{o[1]} << 16) | (uint64_t{o[2]} << 32) |
                 (uint64_t{o[3]} << 48);
      slash[w] = h[0] | (uint64_t{h[1]} << 16) | (uint64_t{h[2]} << 32) |
                 (uint64_t{h[3]} << 48);
    }
    if (w < words) {
      uint64_t om = 0, sm = 0;
      size_t off = 64 * w;
      unsigned o, h;
      for (; off + 16 <= n; off += 16) {
        const __m128i x =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + off));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + off), x);
        Classify(x, &o, &h);
        om |= uint64_t{o} << (off % 64);
        sm |= uint64_t{h} << (off % 64);
      }
      if (off < n) {
        const __m128i x =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + n - 16), x);
        Classify(x, &o, &h);
        const unsigned shift = static_cast<unsigned>(off + 16 - n);
        om |= uint64_t{o >> shift} << (off % 64);
        sm |= uint64_t{h >> shift} << (off % 64);
      }
      other[w] = om;
      slash[w] = sm;
    }
  }
  other[0] &= ~uint64_t{0xFF};  // "xdstp://"

  // Pass 2: visit those bytes in order (the '/' ones only until the id
  // starts), one loop per component.
  size_t w = 0;
  uint64_t keep_slash = ~uint64_t{0};
  uint64_t m = other[0] | (slash[0] & ~uint64_t{0xFF});
  auto next = [&]() -> size_t {  // the next byte to visit, or n
    while (m == 0) {
      if (w + 1 >= words) return n;  // and again if called again
      ++w;
      m = other[w] | (slash[w] & keep_slash);
    }
    const size_t i = 64 * w + static_cast<size_t>(__builtin_ctzll(m));
    m &= m - 1;
    return i;
  };
  size_t i;
  for (;;) {  // authority, up to the first '/'
    i = next();
    if (i == n) return false;  // no type: an error NormalizeXdstp words
    const char c = s[i];
    if (c == '/') break;
    if (!HasClass(c, kAuthority)) return false;
  }
  const size_t authority_end = i;
  for (;;) {  // type, up to the next '/'
    i = next();
    if (i == n) return false;  // no id: "xdstp://a/t" is not canonical
    const char c = s[i];
    if (c == '/') break;
    if (!HasClass(c, kSegment)) return false;
  }
  if (i == authority_end + 1) return false;  // empty type: an error
  const size_t type_end = i;
  keep_slash = 0;  // '/' is plain in the id and the query
  m &= ~slash[w];
  size_t id_end = n;
  for (;;) {  // id, up to '?'
    i = next();
    if (i == n) break;
    const char c = s[i];
    if (c == '?') {
      id_end = i;
      break;
    }
    if (!HasClass(c, kPath)) return false;
  }
  FastParam params[kMaxFastParams];
  size_t count = 0;
  if (id_end != n) {
    size_t piece = id_end + 1, eq = 0;  // eq: the piece's '=' (0: none yet)
    for (;;) {  // query: "k=v" pieces; the end closes the last like a '&'
      i = next();
      const char c = i == n ? '&' : s[i];
      if (c == '=') {
        if (eq != 0) return false;  // a second '=' becomes "%3D"
        eq = i;
      } else if (c == '&') {
        if (eq == 0 || eq == piece || count == kMaxFastParams) {
          return false;  // "k" (means "k="), "=v" or "" (dropped)
        }
        params[count++] = FastParam{static_cast<uint32_t>(piece),
                                    static_cast<uint32_t>(eq - piece),
                                    static_cast<uint32_t>(i - piece)};
        if (i == n) break;
        piece = i + 1;
        eq = 0;
      } else if (!HasClass(c, kQueryPart)) {
        return false;
      }
    }
  }
  if (!expected_type.empty()) {
    absl::ConsumePrefix(&expected_type, kTypeUrlPrefix);
    // No escapes: the type is its own decoded form. A mismatch is an error,
    // which NormalizeXdstp words.
    if (!EqualBytes(s + authority_end + 1, type_end - authority_end - 1,
                    expected_type)) {
      return false;
    }
  }
  // Usually the params are in order already (a name this client requested,
  // echoed back): then the canonical name is the input itself.
  // One insertion-sort pass: it also tells whether anything moved, and
  // finds a key given twice (last-wins de-duplication is NormalizeXdstp's).
  bool sorted = true;
  for (size_t k = 1; k < count; ++k) {
    const int first = CompareFastKeys(s, params[k - 1], params[k]);
    if (first < 0) continue;
    if (first == 0) return false;
    sorted = false;
    const FastParam x = params[k];
    size_t j = k - 1;
    params[k] = params[j];
    for (; j > 0; --j) {
      const int cmp = CompareFastKeys(s, x, params[j - 1]);
      if (cmp == 0) return false;
      if (cmp > 0) break;
      params[j] = params[j - 1];
    }
    params[j] = x;
  }
  const char* base = s;
  if (!sorted) {
    // Same pieces, same separators: the canonical name has the same length
    // and the same component offsets as the input.
    char* o = out + id_end + 1;  // out holds the name: rewrite its query
    for (size_t k = 0; k < count; ++k) {
      CopyPiece(o, s + params[k].begin, params[k].len);
      o += params[k].len;
      *o++ = '&';  // the last one lands in the slack
    }
    base = out;
  }
  v->old_style = false;
  v->authority = absl::string_view(base + 8, authority_end - 8);
  v->type =
      absl::string_view(base + authority_end + 1, type_end - authority_end - 1);
  v->id = absl::string_view(base + type_end + 1, id_end - type_end - 1);
  v->key = absl::string_view(base + type_end + 1, n - type_end - 1);
  v->normalized = absl::string_view(base, n);
  uint64_t param_hashes = 0;
  for (size_t k = 0; k < count; ++k) {
    param_hashes +=
        name_internal::ParamHash(s + params[k].begin, params[k].len);
  }
  v->hash = name_internal::HashNewStyle(base, id_end, n, param_hashes);
  return true;
#endif
}

absl::StatusOr<NormalizedNameView> NameNormalizer::NormalizeXdstp(
    absl::string_view raw, absl::string_view expected_type) {
  using name_internal::kAuthority;
  using name_internal::kPath;
  using name_internal::kQuery;
  using name_internal::kQueryPart;
  using name_internal::kSegment;
  if (raw.size() > kMaxResourceNameLength) {
    return NameError(
        absl::StrCat("longer than ", kMaxResourceNameLength, " bytes"));
  }
  // Regions of buf_ (each with 64 bytes of slack for 16-byte moves):
  //   [0, n+64)        the name, NUL-padded, so scans need no bounds checks
  //   [n+64, 4n+128)   canonical name: a raw '=' in a value grows to "%3D"
  //   [4n+128, 7n+192) params' canonical text, as long as their part of it
  //   [7n+192, 8n+256) decoded keys (at most the query)
  //   [8n+256, ...)    PlainIndex: two arrays of n/16 + 5 uint16_t
  const size_t n = raw.size();
  const size_t blocks = n / 16 + 1;  // the last one takes in the padding
  char* const in = Scratch(n);
  std::memcpy(in, raw.data(), n);
  std::memset(in + n, 0, 16);
  PlainIndex index;
  index.base = in;
#ifdef __SSE2__
  {
    // Independent loads: this pass runs at full width.
    uint16_t* plain = reinterpret_cast<uint16_t*>(
        in + ((8 * n + 256 + 7) & ~static_cast<size_t>(7)));
    uint16_t* slash = plain + blocks + 4;
    for (size_t k = 0; k < blocks; ++k) {
      const __m128i x =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 16 * k));
      plain[k] = static_cast<uint16_t>(PlainMask(x));
      slash[k] = static_cast<uint16_t>(
          _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('/'))));
    }
    std::memset(plain + blocks, 0, 8);  // windows read 4 entries
    std::memset(slash + blocks, 0, 8);
    index.plain = plain;
    index.slash = slash;
  }
#endif
  const char* const begin = in;
  const char* const end = in + n;
  const char* p = begin + kXdstpScheme.size();
  const char* bad = nullptr;
  int escapes = 0;  // escapes kept: only the params' keys need the count
  char* const out = in + n + 64;
  char* o = out;
  std::memcpy(o, "xdstp://", 8);
  o += 8;
  NormalizedNameView v;
  v.old_style = false;

  // Authority (RFC 3986 §3.2), present only after "//"; "xdstp:type/id" has
  // an empty one, as in gRPC C-core.
  if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
    p += 2;
    p = CopyCanonical<false, false>(index, p, kAuthority, kAuthority, o, &bad,
                                    &escapes);
    if (p == nullptr) return BadEscapeError(bad - begin);
    if (p < end && *p != '/' && *p != '?' && *p != '#') {
      return BadByteError(*p, p - begin, "authority");
    }
  }
  v.authority = absl::string_view(out + 8, o - (out + 8));
  *o++ = '/';

  // Path: "/" type "/" id. As in C-core, the split is made on the decoded
  // path, so "%2F" separates like '/' and one leading (decoded) '/' is
  // dropped.
  if (p < end && *p == '/') {
    ++p;
  } else if (end - p >= 3 && p[0] == '%' && p[1] == '2' &&
             (p[2] == 'F' || p[2] == 'f')) {
    p += 3;
  }
  char* const type_begin = o;
  p = CopyCanonical<true, false>(index, p, kSegment, kPath, o, &bad, &escapes);
  if (p == nullptr) return BadEscapeError(bad - begin);
  v.type = absl::string_view(type_begin, o - type_begin);
  if (v.type.empty()) {
    return NameError(
        "missing resource type; expected xdstp://[authority]/type/id");
  }
  if (!expected_type.empty()) {
    absl::ConsumePrefix(&expected_type, kTypeUrlPrefix);
    if (!CanonicalEquals(v.type, expected_type)) {
      return NameError(absl::StrCat("resource type \"", v.type,
                                    "\" does not match expected type \"",
                                    expected_type, "\""));
    }
  }
  if (p < end && *p == '/') {
    ++p;
  } else if (p < end && *p == '%') {  // an escaped '/'
    p += 3;
  }
  *o++ = '/';
  char* const id_begin = o;
  p = CopyCanonical<false, true>(index, p, kPath, kPath, o, &bad, &escapes);
  if (p == nullptr) return BadEscapeError(bad - begin);
  if (p < end && *p != '?' && *p != '#') {
    return BadByteError(*p, p - begin, "path");
  }
  v.id = absl::string_view(id_begin, o - id_begin);

  // Context params (query, RFC 3986 §3.4): "k=v" pieces split on '&' and the
  // first '='. As in C-core: an empty query is an error, a piece with an
  // empty key is dropped, a missing '=' means an empty value.
  params_.clear();
  if (p < end && *p == '?') {
    ++p;
    if (p == end || *p == '#') {
      return NameError("empty query; expected context params after '?'");
    }
    char* t = in + 4 * n + 128;  // params' canonical text
    char* d = in + 7 * n + 192;  // decoded keys
    uint32_t order = 0;
    for (;;) {
      char* const text = t;
      int key_escapes = 0;
      p = CopyCanonical<false, true>(index, p, kQueryPart, kQueryPart, t, &bad,
                                     &key_escapes);
      if (p == nullptr) return BadEscapeError(bad - begin);
      const size_t key_len = t - text;
      *t++ = '=';
      if (p < end && *p == '=') {
        ++p;
        for (;;) {
          p = CopyCanonical<false, true>(index, p, kQueryPart, kQueryPart, t,
                                         &bad, &escapes);
          if (p == nullptr) return BadEscapeError(bad - begin);
          if (p == end || *p != '=') break;
          // A later '=' is part of the value; it is re-encoded as C-core's
          // URI::ToString does.
          std::memcpy(t, "%3D", 3);
          t += 3;
          ++p;
        }
      }
      if (p < end && *p != '&' && *p != '#') {
        return BadByteError(*p, p - begin, "query");
      }
      if (key_len == 0) {
        t = text;  // dropped
      } else {
        if (params_.size() == kMaxContextParams) {
          return NameError(
              absl::StrCat("more than ", kMaxContextParams, " context params"));
        }
        Param param;
        param.text = text;
        param.text_len = static_cast<uint32_t>(t - text);
        param.order = order++;
        if (key_escapes == 0) {
          param.key = text;
          param.key_len = static_cast<uint32_t>(key_len);
        } else {
          char* const key = d;
          d = DecodeCanonical(absl::string_view(text, key_len), d);
          param.key = key;
          param.key_len = static_cast<uint32_t>(d - key);
        }
        params_.push_back(param);
      }
      if (p == end || *p == '#') break;
      ++p;  // '&'
    }
  }
  // Processing directives (fragment) are not part of a name's identity
  // (TP1 §URI-based xDS resource names), but must still be well formed.
  if (p < end) {  // *p == '#'
    ++p;
    char* scratch = o;  // the params' text after it must survive
    p = CopyCanonical<false, true>(index, p, kQuery, kQuery, scratch, &bad,
                                   &escapes);
    if (p == nullptr) return BadEscapeError(bad - begin);
    if (p < end) return BadByteError(*p, p - begin, "fragment");
  }

  uint64_t param_hashes = 0;  // over the params kept (NormalizedNameView::hash)
  if (!params_.empty()) {
    // Sort by (key, order): insertion sort for the usual handful.
    const size_t count = params_.size();
    Param* ps = params_.data();
    if (count <= 16) {
      for (size_t i = 1; i < count; ++i) {
        Param x = ps[i];
        size_t j = i;
        while (j > 0 && ParamLess(x, ps[j - 1])) {
          ps[j] = ps[j - 1];
          --j;
        }
        ps[j] = x;
      }
    } else {
      std::sort(ps, ps + count,
                [](const Param& a, const Param& b) { return ParamLess(a, b); });
    }
    char sep = '?';
    for (size_t i = 0; i < count; ++i) {
      // Of equal keys only the last in the name (the last after sorting)
      // counts (A47 §Resource Cache).
      if (i + 1 < count &&
          SameKey(absl::string_view(ps[i].key, ps[i].key_len),
                  absl::string_view(ps[i + 1].key, ps[i + 1].key_len))) {
        continue;
      }
      *o++ = sep;
      sep = '&';
      MoveShort(o, ps[i].text, ps[i].text_len);
      o += ps[i].text_len;
      param_hashes += name_internal::ParamHash(ps[i].text, ps[i].text_len);
    }
  }
  v.key = absl::string_view(id_begin, o - id_begin);
  v.normalized = absl::string_view(out, o - out);
  v.hash = name_internal::HashNewStyle(out, v.id.data() + v.id.size() - out,
                                       v.normalized.size(), param_hashes);
  return v;
}

absl::StatusOr<ResourceName> ResourceName::Parse(
    absl::string_view name, bool federation, absl::string_view expected_type) {
  NameNormalizer normalizer;
  absl::StatusOr<NormalizedNameView> v =
      normalizer.Normalize(name, federation, expected_type);
  if (!v.ok()) return v.status();
  ResourceName result;
  result.old_style = v->old_style;
  if (v->old_style) {
    result.id = std::string(name);
    return result;
  }
  // The view's pieces are canonical, so decoding cannot fail.
  result.authority = *PercentDecode(v->authority);
  result.type = *PercentDecode(v->type);
  result.id = *PercentDecode(v->id);
  absl::string_view query = v->key.substr(v->id.size());
  if (!query.empty()) {
    query.remove_prefix(1);  // '?'
    while (true) {
      const size_t amp = query.find('&');
      absl::string_view piece = query.substr(0, amp);
      const size_t eq = piece.find('=');
      result.context_params.emplace_back(*PercentDecode(piece.substr(0, eq)),
                                         *PercentDecode(piece.substr(eq + 1)));
      if (amp == absl::string_view::npos) break;
      query.remove_prefix(amp + 1);
    }
  }
  return result;
}

std::string ResourceName::ToString() const {
  if (old_style) return id;
  std::string out =
      absl::StrCat("xdstp://", PercentEncodeAuthority(authority), "/",
                   PercentEncodePath(type), "/", PercentEncodePath(id));
  char sep = '?';
  for (const auto& [key, value] : context_params) {
    absl::StrAppend(&out, absl::string_view(&sep, 1), PercentEncodeQuery(key),
                    "=", PercentEncodeQuery(value));
    sep = '&';
  }
  return out;
}

std::string ResourceName::Key() const {
  if (old_style) return id;
  std::string out = PercentEncodePath(id);
  char sep = '?';
  for (const auto& [key, value] : context_params) {
    absl::StrAppend(&out, absl::string_view(&sep, 1), PercentEncodeQuery(key),
                    "=", PercentEncodeQuery(value));
    sep = '&';
  }
  return out;
}

absl::StatusOr<std::string> NormalizeResourceName(absl::string_view name,
                                                  bool federation) {
  NameNormalizer normalizer;
  absl::StatusOr<NormalizedNameView> v = normalizer.Normalize(name, federation);
  if (!v.ok()) return v.status();
  return std::string(v->normalized);
}

}  // namespace xdsfed
