// A minimal reader of the protobuf wire format for hand-written decoders of
// hot resource types (route_config_fast.cc). It is deliberately stricter
// than libprotobuf: every method returns false on anything it does not
// accept, and the caller then hands the bytes to the libprotobuf path, which
// decides. So a "false" never has to match libprotobuf's verdict; a "true"
// must only accept bytes libprotobuf also accepts, with the same values:
//
//   - tags: at most 5 bytes, fitting 32 bits, field number >= 1, wire type
//     varint, fixed64, length-delimited or fixed32 (groups and wire types
//     6/7 are refused);
//   - varints: at most 10 bytes, the 10th byte 0 or 1 (libprotobuf takes any
//     10th byte below 0x80); 32-bit fields keep the low 32 bits, as
//     libprotobuf's ReadVarint32 does;
//   - lengths: at most 5 bytes and within the enclosing bytes;
//   - strings: well-formed UTF-8 (what proto3 `string` fields require;
//     libprotobuf 3.21 fails the parse otherwise).
//
//   wire::Reader r(bytes);
//   while (!r.done()) {
//     wire::Tag tag;
//     if (!r.ReadTag(&tag)) return false;
//     if (tag.field == 1 && tag.type == wire::kLengthDelimited) { ... }
//     else if (!r.Skip(tag.type)) return false;
//   }
#ifndef XDSFED_LIB_RESOURCES_INTERNAL_WIRE_READER_H_
#define XDSFED_LIB_RESOURCES_INTERNAL_WIRE_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"

namespace xdsfed {
namespace resources {
namespace wire {

enum WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kFixed32 = 5,
};

struct Tag {
  uint32_t field = 0;
  WireType type = kVarint;
};

// The non-ASCII case of IsValidUtf8 (wire_reader.cc).
bool IsValidUtf8Slow(absl::string_view s);

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF), as libprotobuf's IsStructurallyValidUTF8 accepts.
// Names, domains and paths are short and ASCII: whole words are tested for
// a byte with its high bit set, the tail as one overlapping load.
inline bool IsValidUtf8(absl::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  constexpr uint64_t kHigh8 = 0x8080808080808080ull;
  uint64_t bits = 0;
  if (n >= 8) {
    uint64_t word;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      std::memcpy(&word, p + i, 8);
      bits |= word;
    }
    std::memcpy(&word, p + n - 8, 8);
    bits |= word;
    bits &= kHigh8;
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    bits = (a | b) & 0x80808080u;
  } else if (n > 0) {
    bits = (static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[n / 2]) |
            static_cast<uint8_t>(p[n - 1])) &
           0x80u;
  }
  return ABSL_PREDICT_TRUE(bits == 0) || IsValidUtf8Slow(s);
}

class Reader {
 public:
  explicit Reader(absl::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())),
        end_(p_ + bytes.size()) {}

  bool done() const { return p_ == end_; }

  bool ReadTag(Tag* tag) {
    uint64_t v;
    if (ABSL_PREDICT_TRUE(p_ < end_ && *p_ < 0x80)) {
      v = *p_++;
    } else if (!ReadVarintSlow(5, &v) || v > UINT32_MAX) {
      return false;
    }
    const uint32_t type = static_cast<uint32_t>(v) & 7;
    tag->field = static_cast<uint32_t>(v >> 3);
    if (tag->field == 0 || !(type <= 2 || type == 5)) return false;
    tag->type = static_cast<WireType>(type);
    return true;
  }

  bool ReadVarint(uint64_t* v) {
    if (ABSL_PREDICT_TRUE(p_ < end_ && *p_ < 0x80)) {
      *v = *p_++;
      return true;
    }
    return ReadVarintSlow(10, v);
  }

  // The bytes of a length-delimited field (a string or a message).
  bool ReadBytes(absl::string_view* v) {
    uint64_t size;
    if (ABSL_PREDICT_TRUE(p_ < end_ && *p_ < 0x80)) {
      size = *p_++;
    } else if (!ReadVarintSlow(5, &size)) {
      return false;
    }
    if (ABSL_PREDICT_FALSE(size > static_cast<uint64_t>(end_ - p_))) {
      return false;
    }
    *v = absl::string_view(reinterpret_cast<const char*>(p_),
                           static_cast<size_t>(size));
    p_ += size;
    return true;
  }

  // A proto3 `string` field: its bytes, checked to be UTF-8.
  bool ReadString(absl::string_view* v) {
    return ReadBytes(v) && IsValidUtf8(*v);
  }

  // Skips a field's value of the given wire type (an unknown field).
  bool Skip(WireType type) {
    if (type == kLengthDelimited) {
      absl::string_view v;
      return ReadBytes(&v);
    }
    if (type == kVarint) {
      uint64_t v;
      return ReadVarint(&v);
    }
    const size_t size = type == kFixed64 ? 8 : 4;
    if (static_cast<size_t>(end_ - p_) < size) return false;
    p_ += size;
    return true;
  }

 private:
  // A varint of at most `max_bytes` bytes (5 or 10) starting at p_.
  bool ReadVarintSlow(int max_bytes, uint64_t* v);

  const uint8_t* p_;
  const uint8_t* end_;
};

// Checks that `bytes` are a well-formed message whose fields the reader can
// skip, none of them read: for messages with no string or message fields of
// their own (empty messages, wrappers of scalars).
bool SkipMessage(absl::string_view bytes);

// ------------------------------------------- helpers of the fast decoders
//
// The fast decoders (route_config_fast.cc, endpoint_fast.cc,
// cluster_fast.cc) give up - return false - on a singular field or oneof met
// twice (libprotobuf would merge or replace; rare enough not to model) and
// on a known field with an unexpected wire type.

// Singular fields seen so far in one message (field numbers below 64).
class Seen {
 public:
  bool First(uint32_t field) {
    const uint64_t bit = uint64_t{1} << (field & 63);
    if ((bits_ & bit) != 0) return false;
    bits_ |= bit;
    return true;
  }
  bool Has(uint32_t field) const {
    return (bits_ & (uint64_t{1} << (field & 63))) != 0;
  }

 private:
  uint64_t bits_ = 0;
};

// Reads the value of a singular field of the expected wire type, once.
inline bool SingularBytes(Reader* r, const Tag& tag, Seen* seen,
                          absl::string_view* v) {
  return tag.type == kLengthDelimited && seen->First(tag.field) &&
         r->ReadBytes(v);
}
inline bool SingularString(Reader* r, const Tag& tag, Seen* seen,
                           absl::string_view* v) {
  return tag.type == kLengthDelimited && seen->First(tag.field) &&
         r->ReadString(v);
}
inline bool SingularVarint(Reader* r, const Tag& tag, Seen* seen, uint64_t* v) {
  return tag.type == kVarint && seen->First(tag.field) && r->ReadVarint(v);
}

// A oneof member: the first member met sets *which; any second one (the
// same or another member) gives up.
inline bool OneofBytes(Reader* r, const Tag& tag, uint32_t* which,
                       absl::string_view* v) {
  if (tag.type != kLengthDelimited || *which != 0) return false;
  *which = tag.field;
  return r->ReadBytes(v);
}
inline bool OneofString(Reader* r, const Tag& tag, uint32_t* which,
                        absl::string_view* v) {
  return OneofBytes(r, tag, which, v) && IsValidUtf8(*v);
}

// A repeated proto3 `string` field's element: checked to be UTF-8.
inline bool RepeatedString(Reader* r, const Tag& tag, absl::string_view* v) {
  return tag.type == kLengthDelimited && r->ReadString(v);
}

// Reads the fields of one message in wire order: `on_field(reader, tag)`
// reads the field's value (or skips it) and returns false to give up. A
// template, so each message's handler is inlined into its loop.
template <typename OnField>
bool ForEachField(absl::string_view bytes, OnField on_field) {
  Reader r(bytes);
  while (!r.done()) {
    Tag tag;
    if (!r.ReadTag(&tag) || !on_field(r, tag)) return false;
  }
  return true;
}

// google.protobuf.UInt32Value / BoolValue {value = 1;}: the varint, 0 when
// absent.
inline bool ParseWrappedVarint(absl::string_view bytes, uint64_t* out) {
  Seen seen;
  *out = 0;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    return tag.field == 1 ? SingularVarint(&r, tag, &seen, out)
                          : r.Skip(tag.type);
  });
}

// The low 32 bits of a varint, as libprotobuf stores an int32 / enum /
// uint32 field read from a longer varint.
inline int32_t AsInt32(uint64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(v));
}

}  // namespace wire
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_INTERNAL_WIRE_READER_H_
