// The management server's side of CSDS: what one ADS stream's client was
// sent and how it answered, per resource. The control plane keeps one per
// stream and reports them all through lib/admin's CSDS service.
//
//   AdsClientStatus status;
//   status.OnRequest(request, absl::Now());       // every request read
//   status.OnResponse(type_url, nonce, version, names);  // every response
//   ClientConfig config = status.ToClientConfig(in_snapshot);
//
// State of the world gives the server one answer per response, not per
// resource: a NACK marks every resource of the response it answers NACKED
// (error_state: the NACKed version and the client's error_detail), an ACK
// marks them ACKED at that version; version_info stays the last version
// ACKed. A subscribed resource never sent is DOES_NOT_EXIST when the
// snapshot lacks it, else REQUESTED; one sent and not yet answered keeps
// its client status with config_status STALE.
#ifndef XDSFED_TOOLS_CONTROL_PLANE_CLIENT_STATUS_H_
#define XDSFED_TOOLS_CONTROL_PLANE_CLIENT_STATUS_H_

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "envoy/service/status/v3/csds.pb.h"

namespace xdsfed::control_plane {

class AdsClientStatus {
 public:
  // key: the canonical form names are matched by (the control plane's).
  explicit AdsClientStatus(std::function<std::string(const std::string&)> key);

  void OnRequest(const envoy::service::discovery::v3::DiscoveryRequest& request,
                 absl::Time now);
  void OnResponse(const std::string& type_url, const std::string& nonce,
                  const std::string& version,
                  const std::vector<std::string>& names);

  // in_snapshot(type_url, name): whether the server has the resource.
  envoy::service::status::v3::ClientConfig ToClientConfig(
      const std::function<bool(const std::string&, const std::string&)>&
          in_snapshot) const;

 private:
  struct Resource {
    std::string name;
    bool subscribed = false;
    std::optional<std::string> acked_version;
    absl::Time acked_at;
    bool nacked = false;
    std::string nacked_version;
    std::string nack_details;
    absl::Time nacked_at;
    bool unanswered = false;  // in a response not yet ACKed or NACKed
  };
  struct Sent {
    std::string nonce;
    std::string version;
    std::vector<std::string> keys;
  };
  struct Type {
    bool wildcard = false;
    std::map<std::string, Resource> resources;  // by key
    std::deque<Sent> sent;                      // oldest first, unanswered
  };

  const std::function<std::string(const std::string&)> key_;
  std::optional<envoy::config::core::v3::Node> node_;
  std::map<std::string, Type> types_;  // by type URL
};

}  // namespace xdsfed::control_plane

#endif  // XDSFED_TOOLS_CONTROL_PLANE_CLIENT_STATUS_H_
