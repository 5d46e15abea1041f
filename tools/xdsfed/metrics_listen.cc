#include "tools/xdsfed/metrics_listen.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "json/json.h"
#include "lib/client/xds_client_metrics.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {

int StartMetricsListen(
    const std::optional<std::string>& address,
    std::unique_ptr<prometheus_exporter::PrometheusExporter>* exporter) {
  if (!address.has_value()) return 0;
  auto started = prometheus_exporter::PrometheusExporter::Start(*address);
  if (!started.ok()) {
    // Malformed or cannot listen there (e.g. the port is in use): exit 2.
    Json::Value out(Json::objectValue);
    out["metrics_listen"] = *address;
    return ReportIoError(started.status().message(), std::move(out));
  }
  *exporter = *std::move(started);
  Json::Value line(Json::objectValue);
  line["valid"] = true;
  line["event"] = "metrics";
  line["listening"] = absl::StrCat(address->substr(0, address->rfind(':')), ":",
                                   (*exporter)->port());
  PrintJson(line);
  return 0;
}

void ExportResourceGauges(prometheus_exporter::PrometheusExporter* exporter,
                          const std::shared_ptr<client::XdsClient>& client,
                          const std::string& target) {
  if (exporter == nullptr) return;
  std::weak_ptr<client::XdsClient> weak = client;
  exporter->AddCollectCallback([weak, target](metrics::MetricsRecorder& r) {
    if (std::shared_ptr<client::XdsClient> c = weak.lock()) {
      client::RecordResourceGauges(*c, target, r);
    }
  });
}

}  // namespace xdsfed::cli
