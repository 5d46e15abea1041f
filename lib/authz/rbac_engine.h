// RBAC evaluation for xDS-enabled servers (gRFC A41): a validated
// resources::RbacConfig compiled once per Listener / RDS update into an
// immutable engine, then evaluated for each RPC on a borrowed view of it.
// No grpc++ here: lib/server builds the RequestView from its connection and
// the call's metadata.
//
// clang-format off
//   // Once per update:
//   absl::StatusOr<std::shared_ptr<const authz::RbacEngine>> engine =
//       authz::RbacEngine::Compile(config);  // config: resources::RbacConfig
//   // Per RPC:
//   authz::RequestView request;
//   request.path = "/pkg.Svc/Method";
//   request.authority = "svc.example.com";
//   auto lookup = [&](absl::string_view name, std::string* scratch) {
//     return routing::JoinedHeaderValue(metadata, name, scratch);
//   };
//   request.headers.emplace(lookup);  // a FunctionRef: keep `lookup` alive
//   request.peer = *routing::SocketAddress::Parse("127.0.0.1:5000");
//   request.local = *routing::SocketAddress::Parse("127.0.0.1:8080");
//   std::string scratch;  // reused across RPCs
//   authz::Decision d = (*engine)->Evaluate(request, &scratch);
//   if (!d.allowed) { /* PERMISSION_DENIED */ }
// clang-format on
//
// What each matcher reads (A41 tables; gRPC C-core 1.51
// src/core/lib/security/authorization/matchers.cc and evaluate_args.cc,
// "C-core" below, where A41 leaves a choice):
// - header: `headers` by lower-case name, several values joined with ","
//   (A41); ":path", ":authority" (also for "host", A41 aliases them) and
//   ":method" from their own fields; "te" is never present (A41 hop-by-hop
//   rule). A "-bin" header's value must be given base64-encoded (A41). An
//   absent header fails every matcher but present_match, which matches iff
//   present_match == invert_match (A41).
// - url_path: `path`; an empty path never matches (C-core).
// - destination_ip / destination_port: `local`; source_ip, direct_remote_ip
//   and remote_ip: `peer` (A41: the same without proxy protocol or xff).
//   An address of the other family never matches.
// - requested_server_name: always "" (A41).
// - metadata: never matches, so it matches iff invert (A41).
// - authenticated: false unless `tls`; without principal_name, true;
//   else any URI SAN, then any DNS SAN, then the subject ("" without a
//   certificate) matching principal_name. C-core checks all three in that
//   order, where A41's text skips DNS when a URI SAN exists; we follow
//   C-core so that our decisions equal grpc::XdsServerBuilder's.
// - ALLOW: allowed iff a policy matches; DENY: denied iff one does. The
//   first matching policy in name order is reported.
// Evaluate allocates nothing (the header lookup may use `scratch`) and is
// safe to call concurrently on one engine. How the engine is compiled so that
// an RPC costs a few lookups, not one comparison per matcher:
// rbac_program.h.
#ifndef XDSFED_LIB_AUTHZ_RBAC_ENGINE_H_
#define XDSFED_LIB_AUTHZ_RBAC_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/resources/rbac.h"
#include "lib/routing/route_table.h"
#include "lib/routing/socket_address.h"

namespace xdsfed {
namespace authz {

namespace internal {
struct Program;  // rbac_program.h
}  // namespace internal

// One RPC as RBAC sees it. Everything is borrowed for the call.
struct RequestView {
  absl::string_view path;       // ":path", "/pkg.Service/Method"
  absl::string_view authority;  // ":authority" (or Host)
  absl::string_view method = "POST";
  // Other request headers by lower-case name; see the header rules above.
  // May be left unset: then no header is present. A FunctionRef: the
  // callable it refers to must outlive the view.
  std::optional<routing::HeaderLookup> headers;
  routing::SocketAddress local;  // this server's end of the connection
  routing::SocketAddress peer;   // the client's end
  bool tls = false;              // the connection uses TLS
  // The client certificate's SANs and RFC 2253 subject ("" if none).
  absl::Span<const absl::string_view> uri_sans;
  absl::Span<const absl::string_view> dns_sans;
  absl::string_view subject;
};

struct Decision {
  bool allowed = true;
  // The first matching policy's name (points into the engine), "" if none
  // matched.
  absl::string_view policy;
};

class RbacEngine {
 public:
  // Compiles `config` (regexes not yet compiled by the validator are
  // compiled here). Error: InvalidArgument for a regex RE2 refuses, only
  // possible for a hand-built config.
  static absl::StatusOr<std::shared_ptr<const RbacEngine>> Compile(
      const resources::RbacConfig& config);

  // `scratch` is passed to the header lookup (may be null if it never
  // joins values).
  Decision Evaluate(const RequestView& request,
                    std::string* scratch = nullptr) const;

  // No rules: every RPC is allowed without looking at it.
  bool enforcing() const;
  size_t num_policies() const;

  ~RbacEngine();

 private:
  explicit RbacEngine(std::unique_ptr<const internal::Program> program);

  std::unique_ptr<const internal::Program> program_;
};

}  // namespace authz
}  // namespace xdsfed

#endif  // XDSFED_LIB_AUTHZ_RBAC_ENGINE_H_
