// A metrics::MetricsRecorder that serves what is recorded in the Prometheus
// text format at http://HOST:PORT/metrics (issue 28 item 4), on
// prometheus-cpp (Debian prometheus-cpp-dev; its civetweb HTTP server).
// Instrument and label names become Prometheus names with '.' as '_'
// (grpc.xds_client.connected -> grpc_xds_client_connected). A library in
// tools/ so that no lib/ module and no consumer of the installed library
// depends on prometheus-cpp.
//
//   auto exporter = PrometheusExporter::Start("127.0.0.1:9464");
//   if (!exporter.ok()) ...;  // "address 127.0.0.1:9464 is in use"
//   options.metrics = exporter->get();  // e.g. XdsClient::Options
//   (*exporter)->AddCollectCallback([&](metrics::MetricsRecorder& r) {
//     client::RecordResourceGauges(*client, target, r);  // per scrape
//   });
#ifndef XDSFED_TOOLS_PROMETHEUS_EXPORTER_PROMETHEUS_EXPORTER_H_
#define XDSFED_TOOLS_PROMETHEUS_EXPORTER_PROMETHEUS_EXPORTER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/metrics/recorder.h"

namespace xdsfed::prometheus_exporter {

class PrometheusExporter final : public metrics::MetricsRecorder {
 public:
  // Listens on `address` ("host:port", IPv6 as "[::1]:port"; port 0 picks
  // one). Never shares a port: one another socket holds is an error.
  // Errors: kInvalidArgument for a malformed address; kUnavailable
  // "address A is in use" or "cannot listen on A: <reason>".
  static absl::StatusOr<std::unique_ptr<PrometheusExporter>> Start(
      const std::string& address);
  ~PrometheusExporter() override;

  int port() const { return port_; }

  // `callback` runs at each scrape, before the text is produced, to set
  // gauges computed on demand (XdsClient's grpc.xds_client.resources).
  // Gauges of an instrument set by callbacks that a scrape's callbacks no
  // longer set are dropped from that scrape on.
  void AddCollectCallback(std::function<void(metrics::MetricsRecorder&)> cb);

  void AddCounter(const metrics::Instrument& instrument,
                  absl::Span<const absl::string_view> label_values,
                  uint64_t delta) override;
  void SetGauge(const metrics::Instrument& instrument,
                absl::Span<const absl::string_view> label_values,
                int64_t value) override;

  // "grpc.xds_client.connected" -> "grpc_xds_client_connected".
  static std::string PrometheusName(absl::string_view name);

  class State;

 private:
  explicit PrometheusExporter(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
  std::shared_ptr<void> server_;  // the HTTP server, stopped first
  int port_ = 0;
};

}  // namespace xdsfed::prometheus_exporter

#endif  // XDSFED_TOOLS_PROMETHEUS_EXPORTER_PROMETHEUS_EXPORTER_H_
