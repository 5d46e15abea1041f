// `xdsfed watch [--timeout SECONDS] [--quiet] (--target XDS_TARGET |
// --server-listen HOST:PORT | TYPE:NAME...)`: a real XdsClient against the
// bootstrap's servers, printing one JSON line per watcher event
// (../shared/CLI.md). --target and --server-listen run lib/xds_config's
// managers and also print each published snapshot ("xds_config" /
// "server_config" lines) and, for --target, one "cluster_tree" line per
// change of a routed cluster's A37 tree. With --csds-listen HOST:PORT the
// client also serves CSDS there (first line: {"event":"csds",
// "listening":...}). Exit status: 0 if no event was an error (or a failed
// tree / snapshot), else 1.
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/admin/csds_service.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/client/xds_client.h"
#include "lib/metrics/instruments.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/server_config_manager.h"
#include "lib/xds_config/xds_client_watch_source.h"
#include "lib/xds_config/xds_dependency_manager.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/cluster_tree_output.h"
#include "tools/xdsfed/metrics_listen.h"
#include "tools/xdsfed/watch_output.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed watch [--timeout SECONDS] [--quiet] [--csds-listen "
    "HOST:PORT] [--metrics-listen HOST:PORT] (--target XDS_TARGET | "
    "--server-listen HOST:PORT | TYPE:NAME...)";

// Waits for SIGINT / SIGTERM or the timeout (negative: none). The signals
// must already be blocked in every thread (see RunWatch).
void WaitForSignalOrTimeout(const sigset_t& signals, double timeout_seconds) {
  if (timeout_seconds < 0) {
    int signal = 0;
    sigwait(&signals, &signal);
    return;
  }
  timespec timeout;
  timeout.tv_sec = static_cast<time_t>(timeout_seconds);
  timeout.tv_nsec = static_cast<long>(
      (timeout_seconds - static_cast<double>(timeout.tv_sec)) * 1e9);
  while (sigtimedwait(&signals, nullptr, &timeout) < 0 && errno == EINTR) {
  }
}

// A watch whose events only the source's observer sees (TYPE:NAME mode).
template <typename T>
class Ignore : public xds_config::ResourceWatcher<T> {
 public:
  void OnChanged(std::shared_ptr<const T>) override {}
  void OnError(absl::Status) override {}
  void OnDoesNotExist() override {}
};

cluster::ClusterDataSource::WatchHandle WatchOnly(
    xds_config::WatchSource& source, const resources::ResourceType& type,
    const std::string& name) {
  if (type.type_url() == resources::kListenerTypeUrl) {
    return source.WatchListener(
        name, std::make_shared<Ignore<resources::Listener>>());
  }
  if (type.type_url() == resources::kRouteConfigTypeUrl) {
    return source.WatchRouteConfig(
        name, std::make_shared<Ignore<resources::RouteConfig>>());
  }
  if (type.type_url() == resources::kClusterTypeUrl) {
    return source.WatchCluster(
        name, std::make_shared<Ignore<resources::ClusterResource>>());
  }
  return source.WatchEndpoints(
      name, std::make_shared<Ignore<resources::EndpointResource>>());
}

int ReportInternal(const absl::Status& status) {
  PrintJson(InvalidResult(status.message()));
  return kExitInvalid;
}

int RunWatch(Context& context) {
  bool missing = false;
  std::optional<std::string> timeout_flag =
      TakeFlag(&context.args, "--timeout", &missing);
  std::optional<std::string> target =
      TakeFlag(&context.args, "--target", &missing);
  std::optional<std::string> server_listen =
      TakeFlag(&context.args, "--server-listen", &missing);
  std::optional<std::string> csds_listen =
      TakeFlag(&context.args, "--csds-listen", &missing);
  std::optional<std::string> metrics_listen =
      TakeFlag(&context.args, "--metrics-listen", &missing);
  const bool quiet = TakeSwitch(&context.args, "--quiet");
  if (missing) return UsageError(kUsage);
  double timeout_seconds = -1;
  if (timeout_flag.has_value() &&
      (!absl::SimpleAtod(*timeout_flag, &timeout_seconds) ||
       timeout_seconds < 0 || !std::isfinite(timeout_seconds))) {
    return UsageError(
        "--timeout wants a finite non-negative number of seconds");
  }
  const int modes = (target.has_value() ? 1 : 0) +
                    (server_listen.has_value() ? 1 : 0) +
                    (context.args.empty() ? 0 : 1);
  if (modes != 1) return UsageError(kUsage);

  // Parse every TYPE:NAME before connecting anywhere.
  struct Plain {
    const resources::ResourceType* type;
    std::string name;
  };
  std::vector<Plain> plain;
  for (const std::string& arg : context.args) {
    size_t colon = arg.find(':');
    const resources::ResourceType* type =
        colon == std::string::npos
            ? nullptr
            : resources::FindResourceType(arg.substr(0, colon));
    if (type == nullptr) {
      return UsageError(
          "expected TYPE:NAME with TYPE a type URL or one of "
          "Listener, RouteConfiguration, Cluster, "
          "ClusterLoadAssignment, lds, rds, cds, eds; got \"" +
          arg + "\"");
    }
    plain.push_back({type, arg.substr(colon + 1)});
  }

  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  std::optional<ResolvedListener> resolved;
  if (target.has_value() || server_listen.has_value()) {
    auto r = target.has_value()
                 ? ResolveXdsTarget(**bootstrap, *target)
                 : ResolveServerListener(**bootstrap, *server_listen);
    if (!r.ok()) {
      Json::Value out = InvalidResult(r.status().message());
      if (target.has_value()) out["target"] = *target;
      if (server_listen.has_value()) out["listening_address"] = *server_listen;
      PrintJson(out);
      return kExitInvalid;
    }
    resolved = *std::move(r);
  }

  // Signals are taken synchronously by this thread: block them before the
  // client starts its threads, which inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Before the client, which records into it and must not outlive it.
  std::unique_ptr<prometheus_exporter::PrometheusExporter> exporter;
  if (int code = StartMetricsListen(metrics_listen, &exporter); code != 0) {
    return code;
  }
  // A78 grpc.target: the channel target, "#server" for a server's client.
  const std::string metrics_target = target.has_value() ? *target
                                     : server_listen.has_value()
                                         ? std::string(metrics::kServerTarget)
                                         : "";
  client::XdsClient::Options client_options;
  client_options.metrics = exporter.get();
  client_options.metrics_target = metrics_target;
  auto client = client::XdsClient::Create(
      *bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
      client_options);
  if (!client.ok()) {
    PrintJson(InvalidResult(client.status().message()));
    return kExitInvalid;
  }
  ExportResourceGauges(exporter.get(), *client, metrics_target);
  std::unique_ptr<admin::CsdsServer> csds;
  if (csds_listen.has_value()) {
    auto started = admin::CsdsServer::Start(
        *csds_listen, admin::XdsClientSource(
                          *client, target.has_value() ? *target
                                   : server_listen.has_value()
                                       ? std::string(admin::kServerClientScope)
                                       : ""));
    if (!started.ok()) {
      // Cannot listen there (e.g. the port is in use): an I/O error, exit 2.
      Json::Value out(Json::objectValue);
      out["csds_listen"] = *csds_listen;
      return ReportIoError(started.status().message(), std::move(out));
    }
    csds = *std::move(started);
    const std::string host = csds_listen->substr(0, csds_listen->rfind(':'));
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["event"] = "csds";
    line["listening"] = absl::StrCat(host, ":", csds->port());
    PrintJson(line);
  }
  std::atomic<bool> any_error{false};
  // Every watcher event underneath, as before lib/xds_config existed.
  xds_config::ResourceObserver observer =
      [&](const xds_config::ResourceEvent& event) {
        if (event.kind == xds_config::ResourceEvent::Kind::kError) {
          any_error = true;
        }
        PrintJson(WatchEventToJson(event, quiet));
      };
  ClusterTreePrinter tree_printer;
  std::shared_ptr<xds_config::XdsDependencyManager> manager;
  std::shared_ptr<xds_config::ServerConfigManager> server;
  std::vector<std::pair<std::shared_ptr<xds_config::WatchSource>,
                        cluster::ClusterDataSource::WatchHandle>>
      plain_watches;
  if (target.has_value()) {
    // The snapshots a channel would get, and each root cluster's A37 tree
    // when it changes.
    auto started = xds_config::XdsDependencyManager::StartForTarget(
        *client, *target,
        [&, listener = resolved->listener_resource_name](
            std::shared_ptr<const xds_config::XdsConfig> config) {
          Json::Value line = XdsConfigToJson(*config, listener);
          if (!line["valid"].asBool()) any_error = true;
          PrintJson(line);
          for (Json::Value& tree : tree_printer.ChangedTrees(*config)) {
            if (!tree["valid"].asBool()) any_error = true;
            PrintJson(tree);
          }
        },
        observer);
    if (!started.ok()) return ReportInternal(started.status());
    manager = *std::move(started);
  } else if (server_listen.has_value()) {
    auto started = xds_config::ServerConfigManager::StartForAddress(
        *client, *server_listen,
        [&, listener = resolved->listener_resource_name](
            std::shared_ptr<const xds_config::ServerConfig> config) {
          Json::Value line = ServerConfigToJson(*config, listener);
          if (!line["valid"].asBool()) any_error = true;
          PrintJson(line);
        },
        observer);
    if (!started.ok()) return ReportInternal(started.status());
    server = *std::move(started);
  } else {
    auto source =
        std::make_shared<xds_config::XdsClientWatchSource>(*client, observer);
    for (const Plain& p : plain) {
      plain_watches.emplace_back(source, WatchOnly(*source, *p.type, p.name));
    }
  }
  WaitForSignalOrTimeout(signals, timeout_seconds);
  if (manager != nullptr) manager->Stop();
  if (server != nullptr) server->Stop();
  for (const auto& [source, handle] : plain_watches) {
    source->CancelWatch(handle);
  }
  return any_error ? kExitInvalid : kExitValid;
}

XDSFED_REGISTER_COMMAND("watch", RunWatch,
                        "watch [--timeout S] [--quiet] [--metrics-listen A] "
                        "(--target T | --server-listen A | TYPE:NAME...)  "
                        "watch resources");

}  // namespace
}  // namespace xdsfed::cli
