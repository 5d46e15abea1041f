// RFC 3986 character classes as one 256-entry bit table, so that the hot path
// classifies a byte with one load and one test.
#ifndef XDSFED_LIB_NAME_INTERNAL_CHAR_CLASS_H_
#define XDSFED_LIB_NAME_INTERNAL_CHAR_CLASS_H_

#include <array>
#include <cstdint>

namespace xdsfed::name_internal {

enum CharClass : uint16_t {
  kUnreserved = 1 << 0,  // ALPHA DIGIT - . _ ~
  kSubDelim = 1 << 1,    // ! $ & ' ( ) * + , ; =
  kPath = 1 << 2,        // pchar + '/'
  kAuthority = 1 << 3,   // unreserved, sub-delims, ':' '@' '[' ']'
  kQuery = 1 << 4,       // pchar + '/' '?' (query and fragment)
  kQueryPart = 1 << 5,   // kQuery minus '&' '=' (one key or value)
  kScheme = 1 << 6,      // ALPHA DIGIT + - .
  kHexDigit = 1 << 7,    // 0-9 A-F a-f
  kSegment = 1 << 8,     // pchar: kPath minus '/' (one path segment)
};

constexpr std::array<uint16_t, 256> MakeCharClassTable() {
  std::array<uint16_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    const bool digit = c >= '0' && c <= '9';
    const bool unreserved =
        alpha || digit || c == '-' || c == '.' || c == '_' || c == '~';
    const bool sub_delim = c == '!' || c == '$' || c == '&' || c == '\'' ||
                           c == '(' || c == ')' || c == '*' || c == '+' ||
                           c == ',' || c == ';' || c == '=';
    const bool pchar = unreserved || sub_delim || c == ':' || c == '@';
    uint16_t bits = 0;
    if (unreserved) bits |= kUnreserved;
    if (sub_delim) bits |= kSubDelim;
    if (pchar) bits |= kSegment;
    if (pchar || c == '/') bits |= kPath;
    if (unreserved || sub_delim || c == ':' || c == '@' || c == '[' ||
        c == ']') {
      bits |= kAuthority;
    }
    if (pchar || c == '/' || c == '?') {
      bits |= kQuery;
      if (c != '&' && c != '=') bits |= kQueryPart;
    }
    if (alpha || digit || c == '+' || c == '-' || c == '.') bits |= kScheme;
    if (digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
      bits |= kHexDigit;
    }
    t[c] = bits;
  }
  return t;
}

inline constexpr std::array<uint16_t, 256> kCharClass = MakeCharClassTable();

inline bool HasClass(char c, uint16_t mask) {
  return (kCharClass[static_cast<uint8_t>(c)] & mask) != 0;
}

// Value of a hex digit already known to be one.
inline int HexValue(char c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

inline constexpr char kUpperHex[] = "0123456789ABCDEF";

}  // namespace xdsfed::name_internal

#endif  // XDSFED_LIB_NAME_INTERNAL_CHAR_CLASS_H_
