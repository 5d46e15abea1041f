// `xdsfed watch [--timeout SECONDS] [--quiet] (--target XDS_TARGET |
// --server-listen HOST:PORT | TYPE:NAME...)`: a real XdsClient against the
// bootstrap's servers, printing one JSON line per watcher event
// (../shared/CLI.md); with --target also one "cluster_tree" line per update
// of each root cluster's A37 tree. With --csds-listen HOST:PORT the client
// also serves CSDS there (first line: {"event":"csds","listening":...}).
// Exit status: 0 if no event was an error (or a failed tree), else 1.
#include <signal.h>

#include <atomic>
#include <cerrno>
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
#include "lib/client/xds_client_cluster_source.h"
#include "lib/cluster/cluster_resolution.h"
#include "lib/transport/grpc_transport.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/chain_watch.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/cluster_tree_output.h"
#include "tools/xdsfed/cluster_tree_watch.h"
#include "tools/xdsfed/watch_output.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed watch [--timeout SECONDS] [--quiet] [--csds-listen "
    "HOST:PORT] (--target XDS_TARGET | --server-listen HOST:PORT | "
    "TYPE:NAME...)";

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
  const bool quiet = TakeSwitch(&context.args, "--quiet");
  if (missing) return UsageError(kUsage);
  double timeout_seconds = -1;
  if (timeout_flag.has_value() &&
      (!absl::SimpleAtod(*timeout_flag, &timeout_seconds) ||
       timeout_seconds < 0)) {
    return UsageError("--timeout wants a non-negative number of seconds");
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

  auto client = client::XdsClient::Create(
      *bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
      client::XdsClient::Options());
  if (!client.ok()) {
    PrintJson(InvalidResult(client.status().message()));
    return kExitInvalid;
  }
  std::unique_ptr<admin::CsdsServer> csds;
  if (csds_listen.has_value()) {
    auto started = admin::CsdsServer::Start(
        *csds_listen,
        admin::XdsClientSource(*client, target.has_value() ? *target : ""));
    if (!started.ok()) return UsageError(started.status().message());
    csds = *std::move(started);
    const std::string host = csds_listen->substr(0, csds_listen->rfind(':'));
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["event"] = "csds";
    line["listening"] = absl::StrCat(host, ":", csds->port());
    PrintJson(line);
  }
  std::atomic<bool> any_error{false};
  {
    // --target: the cluster trees under the route's clusters, as the
    // channel's cds policies would resolve them (A37), one line per update.
    ClusterTreePrinter tree_printer;
    ClusterTreeWatch trees(
        std::make_shared<client::XdsClientClusterSource>(*client),
        {cluster::SystemDnsResolver(), *bootstrap},
        [&](const std::string& root,
            const cluster::ClusterResolution::Update& update) {
          Json::Value line = tree_printer.ToJson(root, update);
          if (!line["valid"].asBool()) any_error = true;
          PrintJson(line);
        });
    ChainWatch::RootsSink roots_sink;
    if (target.has_value()) {
      roots_sink = [&trees](const std::set<std::string>& roots) {
        trees.SetRoots(roots);
      };
    }
    ChainWatch chain(
        *client,
        [&](const ChainWatch::Event& event) {
          if (event.kind == ChainWatch::Event::Kind::kError) any_error = true;
          PrintJson(WatchEventToJson(event, quiet));
        },
        roots_sink);
    if (target.has_value()) {
      chain.FollowListener(resolved->listener_resource_name,
                           ChainWatch::Mode::kClient,
                           resolved->data_plane_authority);
    } else if (server_listen.has_value()) {
      chain.FollowListener(resolved->listener_resource_name,
                           ChainWatch::Mode::kServer, "");
    } else {
      for (const Plain& p : plain) {
        chain.Watch(*p.type, p.name, ChainWatch::Mode::kNone);
      }
    }
    WaitForSignalOrTimeout(signals, timeout_seconds);
    chain.Stop();
    trees.Stop();
  }
  return any_error ? kExitInvalid : kExitValid;
}

XDSFED_REGISTER_COMMAND("watch", RunWatch,
                        "watch [--timeout S] [--quiet] (--target T | "
                        "--server-listen A | TYPE:NAME...)  watch resources");

}  // namespace
}  // namespace xdsfed::cli
