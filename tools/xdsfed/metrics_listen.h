// --metrics-listen HOST:PORT (watch; docs/cli.md): serves the process's
// metrics in the Prometheus text format at http://HOST:PORT/metrics
// (tools/prometheus_exporter, docs/metrics.md).
#ifndef XDSFED_TOOLS_XDSFED_METRICS_LISTEN_H_
#define XDSFED_TOOLS_XDSFED_METRICS_LISTEN_H_

#include <memory>
#include <optional>
#include <string>

#include "lib/client/xds_client.h"
#include "tools/prometheus_exporter/prometheus_exporter.h"

namespace xdsfed::cli {

// Starts the exporter when `address` is set and prints
// {"valid":true,"event":"metrics","listening":"HOST:PORT"}. Returns 0, or
// the exit code (2: the address is malformed or in use, reported as one
// JSON line) when it cannot listen. *exporter stays null without a flag.
int StartMetricsListen(
    const std::optional<std::string>& address,
    std::unique_ptr<prometheus_exporter::PrometheusExporter>* exporter);

// Makes each scrape report `client`'s grpc.xds_client.resources gauges
// with grpc.target `target` (held weakly: a scrape after the client is gone
// reports none).
void ExportResourceGauges(prometheus_exporter::PrometheusExporter* exporter,
                          const std::shared_ptr<client::XdsClient>& client,
                          const std::string& target);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_METRICS_LISTEN_H_
