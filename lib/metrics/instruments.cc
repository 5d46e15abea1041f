#include "lib/metrics/instruments.h"

namespace xdsfed::metrics {

namespace {

constexpr absl::string_view kTargetServer[] = {kTarget, kXdsServer};
constexpr absl::string_view kTargetServerType[] = {kTarget, kXdsServer,
                                                   kXdsResourceType};
constexpr absl::string_view kResourcesLabels[] = {
    kTarget, kXdsAuthority, kXdsCacheState, kXdsResourceType};

}  // namespace

// Names, units, labels and descriptions: gRFC A78 §XdsClient table.
const Instrument kXdsClientConnected = {
    "grpc.xds_client.connected", "{bool}",
    "Whether or not the xDS client currently has a working ADS stream to the "
    "xDS server.",
    Instrument::Kind::kGauge, kTargetServer};
const Instrument kXdsClientServerFailure = {
    "grpc.xds_client.server_failure", "{failure}",
    "A counter of xDS servers going from healthy to unhealthy.",
    Instrument::Kind::kCounter, kTargetServer};
const Instrument kXdsClientResourceUpdatesValid = {
    "grpc.xds_client.resource_updates_valid", "{resource}",
    "A counter of resources received that were considered valid.",
    Instrument::Kind::kCounter, kTargetServerType};
const Instrument kXdsClientResourceUpdatesInvalid = {
    "grpc.xds_client.resource_updates_invalid", "{resource}",
    "A counter of resources received that were considered invalid.",
    Instrument::Kind::kCounter, kTargetServerType};
const Instrument kXdsClientResources = {
    "grpc.xds_client.resources", "{resource}", "Number of xDS resources.",
    Instrument::Kind::kGauge, kResourcesLabels};

absl::Span<const Instrument* const> AllInstruments() {
  static const Instrument* const kAll[] = {
      &kXdsClientConnected, &kXdsClientServerFailure,
      &kXdsClientResourceUpdatesValid, &kXdsClientResourceUpdatesInvalid,
      &kXdsClientResources};
  return kAll;
}

}  // namespace xdsfed::metrics
