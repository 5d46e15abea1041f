// Every instrument the library records: gRFC A78's XdsClient instruments
// with its names, units and labels, and xdsfed's own for the data plane
// and the server. docs/metrics.md lists them; an exporter turns names into
// its own form (Prometheus: '.' -> '_').
#ifndef XDSFED_LIB_METRICS_INSTRUMENTS_H_
#define XDSFED_LIB_METRICS_INSTRUMENTS_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xdsfed::metrics {

struct Instrument {
  enum class Kind { kCounter, kGauge };
  absl::string_view name;
  absl::string_view unit;  // UCUM, as A78 writes them: "{resource}"
  absl::string_view description;
  Kind kind;
  absl::Span<const absl::string_view> labels;
};

// A78 label names.
inline constexpr absl::string_view kTarget = "grpc.target";
inline constexpr absl::string_view kXdsServer = "grpc.xds.server";
inline constexpr absl::string_view kXdsAuthority = "grpc.xds.authority";
inline constexpr absl::string_view kXdsCacheState = "grpc.xds.cache_state";
inline constexpr absl::string_view kXdsResourceType = "grpc.xds.resource_type";

// A78: grpc.target for an XdsClient used by a server.
inline constexpr absl::string_view kServerTarget = "#server";
// A78: grpc.xds.authority for old-style (non-xdstp) names.
inline constexpr absl::string_view kOldStyleAuthority = "#old";

// A78 §XdsClient.
extern const Instrument kXdsClientConnected;
extern const Instrument kXdsClientServerFailure;
extern const Instrument kXdsClientResourceUpdatesValid;
extern const Instrument kXdsClientResourceUpdatesInvalid;
extern const Instrument kXdsClientResources;

// Every instrument above, for exporters and docs.
absl::Span<const Instrument* const> AllInstruments();

}  // namespace xdsfed::metrics

#endif  // XDSFED_LIB_METRICS_INSTRUMENTS_H_
