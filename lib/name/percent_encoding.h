// Percent-encoding of RFC 3986 URI components with exact character classes, as
// xdstp: names (cncf/xds TP1) and A47 templates need them.
//
//   PercentEncodePath("grpc/server?x y")   == "grpc/server%3Fx%20y"
//   PercentEncodeAuthority("a b.com")      == "a%20b.com"
//   PercentEncodeQuery("a=b&c d")          == "a%3Db%26c%20d"
//   *PercentDecode("a%2fb")                == "a/b"
//   PercentDecode("%zz")                   -> error
//
// Output hex digits are upper case. Unreserved characters are never escaped.
#ifndef XDSFED_LIB_NAME_PERCENT_ENCODING_H_
#define XDSFED_LIB_NAME_PERCENT_ENCODING_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

// Character classes of RFC 3986 §2-3.
bool IsUnreservedChar(char c);  // ALPHA DIGIT - . _ ~
bool IsSubDelimChar(char c);    // ! $ & ' ( ) * + , ; =
// pchar / "/" : unreserved, sub-delims, ':' '@' '/'.
bool IsPathChar(char c);
// reg-name / userinfo / port / IP-literal: unreserved, sub-delims, ':' '@'
// '[' ']'.
bool IsAuthorityChar(char c);
// query / fragment: pchar, '/' and '?'.
bool IsQueryChar(char c);

// Escapes every byte outside the class (as "%XX", upper case).
std::string PercentEncodePath(absl::string_view s);
std::string PercentEncodeAuthority(absl::string_view s);
// One component (a key or a value) of an xdstp query: the query class minus
// '&' and '=', which separate params (as gRPC C-core encodes them).
std::string PercentEncodeQuery(absl::string_view component);

// Decodes every "%XX" (either case); other bytes are kept. A '%' not followed
// by two hex digits is an error: "invalid percent-encoding at offset N:
// expected two hex digits after '%'".
absl::StatusOr<std::string> PercentDecode(absl::string_view s);

// Decodes every "%XX" (either case) and keeps any other '%' as a literal
// byte, as gRPC C-core decodes channel targets: PercentDecodeLenient("50%off")
// == "50%off". For user-written targets only; names stay strict.
std::string PercentDecodeLenient(absl::string_view s);

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_PERCENT_ENCODING_H_
