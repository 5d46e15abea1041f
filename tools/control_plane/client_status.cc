#include "tools/control_plane/client_status.h"

#include <utility>

#include "absl/strings/match.h"

namespace xdsfed::control_plane {
namespace {

using envoy::service::status::v3::ClientConfig;

// Responses kept per type while unanswered; a client answers in order, so
// only a misbehaving one leaves more behind.
constexpr size_t kMaxUnanswered = 64;

void SetTime(absl::Time time, google::protobuf::Timestamp* out) {
  const int64_t nanos = absl::ToUnixNanos(time);
  out->set_seconds(nanos / 1000000000);
  out->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

bool EmptyMeansWildcard(const std::string& type_url) {
  return absl::EndsWith(type_url, "envoy.config.listener.v3.Listener") ||
         absl::EndsWith(type_url, "envoy.config.cluster.v3.Cluster");
}

}  // namespace

AdsClientStatus::AdsClientStatus(
    std::function<std::string(const std::string&)> key)
    : key_(std::move(key)) {}

void AdsClientStatus::OnRequest(
    const envoy::service::discovery::v3::DiscoveryRequest& request,
    absl::Time now) {
  if (!node_.has_value() && request.has_node()) node_ = request.node();
  Type& type = types_[request.type_url()];
  if (!request.response_nonce().empty()) {
    for (size_t i = 0; i < type.sent.size(); ++i) {
      if (type.sent[i].nonce != request.response_nonce()) continue;
      const Sent& sent = type.sent[i];
      for (const std::string& key : sent.keys) {
        auto it = type.resources.find(key);
        if (it == type.resources.end()) continue;
        Resource& r = it->second;
        r.unanswered = false;
        if (request.has_error_detail()) {
          r.nacked = true;
          r.nacked_version = sent.version;
          r.nack_details = request.error_detail().message();
          r.nacked_at = now;
        } else {
          r.nacked = false;
          r.acked_version = sent.version;
          r.acked_at = now;
        }
      }
      type.sent.erase(type.sent.begin(), type.sent.begin() + i + 1);
      break;
    }
  }
  type.wildcard = request.resource_names().empty() &&
                  EmptyMeansWildcard(request.type_url());
  for (auto& [key, r] : type.resources) r.subscribed = false;
  for (const std::string& name : request.resource_names()) {
    if (name == "*") {
      type.wildcard = true;
      continue;
    }
    Resource& r = type.resources[key_(name)];
    if (r.name.empty()) r.name = name;
    r.subscribed = true;
  }
  // Unsubscribed resources leave the report, unless a wildcard keeps them.
  if (!type.wildcard) {
    for (auto it = type.resources.begin(); it != type.resources.end();) {
      it = it->second.subscribed ? std::next(it) : type.resources.erase(it);
    }
  }
}

void AdsClientStatus::OnResponse(const std::string& type_url,
                                 const std::string& nonce,
                                 const std::string& version,
                                 const std::vector<std::string>& names) {
  Type& type = types_[type_url];
  Sent& sent = type.sent.emplace_back();
  sent.nonce = nonce;
  sent.version = version;
  for (const std::string& name : names) {
    std::string key = key_(name);
    Resource& r = type.resources[key];
    if (r.name.empty()) r.name = name;
    r.unanswered = true;
    sent.keys.push_back(std::move(key));
  }
  if (type.sent.size() > kMaxUnanswered) type.sent.pop_front();
}

ClientConfig AdsClientStatus::ToClientConfig(
    const std::function<bool(const std::string&, const std::string&)>&
        in_snapshot) const {
  ClientConfig config;
  if (node_.has_value()) *config.mutable_node() = *node_;
  for (const auto& [type_url, type] : types_) {
    for (const auto& [key, r] : type.resources) {
      ClientConfig::GenericXdsConfig* out = config.add_generic_xds_configs();
      out->set_type_url(type_url);
      out->set_name(r.name);
      if (r.acked_version.has_value()) {
        out->set_version_info(*r.acked_version);
        SetTime(r.acked_at, out->mutable_last_updated());
      }
      namespace admin = envoy::admin::v3;
      namespace status = envoy::service::status::v3;
      if (r.nacked) {
        out->set_client_status(admin::NACKED);
        out->set_config_status(r.unanswered ? status::STALE : status::ERROR);
        admin::UpdateFailureState* error = out->mutable_error_state();
        error->set_version_info(r.nacked_version);
        error->set_details(r.nack_details);
        SetTime(r.nacked_at, error->mutable_last_update_attempt());
      } else if (r.acked_version.has_value()) {
        out->set_client_status(admin::ACKED);
        out->set_config_status(r.unanswered ? status::STALE : status::SYNCED);
      } else if (r.unanswered) {
        out->set_client_status(admin::REQUESTED);
        out->set_config_status(status::STALE);
      } else if (!in_snapshot(type_url, r.name)) {
        out->set_client_status(admin::DOES_NOT_EXIST);
        out->set_config_status(status::NOT_SENT);
      } else {
        out->set_client_status(admin::REQUESTED);
        out->set_config_status(status::NOT_SENT);
      }
    }
  }
  return config;
}

}  // namespace xdsfed::control_plane
