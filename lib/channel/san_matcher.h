// Server authorization for endpoint connections (gRFC A29 §Server
// Authorization): the SANs of the server's leaf certificate checked against
// a Cluster's match_subject_alt_names, after the CA check passed. Pure
// logic, no grpc++; the handshake hook is endpoint_tls.h.
//
//   PeerSans sans;
//   sans.uri = {"spiffe://mesh/ns/a/sa/b"};
//   if (!SansMatch(tls.match_subject_alt_names, sans)) {
//     fail(DescribeSanMismatch(tls.match_subject_alt_names, sans));
//   }
//
// Rules (A29): no matcher: any certificate passes. Otherwise every DNS,
// URI, email and IP SAN is tried against every matcher and one match is
// enough; an empty SAN matches nothing; IP SANs are compared in canonical
// form (RFC 5952 for IPv6: "2001:DB8:0::01" -> "2001:db8::1"). An `exact`
// matcher on a DNS SAN follows the DNS rules (case-insensitive, trailing
// dot ignored, a "*." wildcard covers exactly one left-most label), as gRPC
// C-core's VerifySubjectAlternativeName does; on other SAN types `exact`
// and every other matcher follow StringMatcher's own semantics
// (routing::StringMatches: ignore_case honoured, safe_regex a full match).
// C-core 1.51 applies the DNS rules to every SAN type for `exact`; we keep
// them to DNS SANs, which is stricter for a URI differing only in case.
#ifndef XDSFED_LIB_CHANNEL_SAN_MATCHER_H_
#define XDSFED_LIB_CHANNEL_SAN_MATCHER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/resources/route_config.h"

namespace xdsfed::channel {

struct PeerSans {
  std::vector<std::string> dns, uri, email, ip;
  bool empty() const {
    return dns.empty() && uri.empty() && email.empty() && ip.empty();
  }
};

// True if the certificate passes (see above).
bool SansMatch(const std::vector<resources::StringMatch>& matchers,
               const PeerSans& sans);

// The DNS form of `exact` alone: does the SAN `san` (maybe "*.x.y")
// match the name `name`?
bool DnsSanMatchesName(absl::string_view san, absl::string_view name);

// "2001:db8::1" for any spelling of that address; the input unchanged when
// it is not an IP address.
std::string CanonicalIp(absl::string_view ip);

// For the failure reason: `the server's certificate presents [DNS:"a",
// URI:"spiffe://x"], none matches match_subject_alt_names [exact:"b",
// prefix(ignore_case):"c"]`, quoted and length-capped.
std::string DescribeSanMismatch(
    const std::vector<resources::StringMatch>& matchers, const PeerSans& sans);

// `URI:"spiffe://x", DNS:"a"`: how a certificate names its holder, for
// logs and the CLI; quoted and length-capped.
std::string DescribeSans(const PeerSans& sans);

}  // namespace xdsfed::channel

#endif  // XDSFED_LIB_CHANNEL_SAN_MATCHER_H_
