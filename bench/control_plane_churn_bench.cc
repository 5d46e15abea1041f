// Issue 16 item 4: memory of `xdsfed control-plane` under stream churn.
// Starts the CLI's control plane as a child process on a one-cluster
// snapshot, opens N short ADS streams one after another (request, response,
// ACK, close), and reads the child's resident memory (VmRSS in
// /proc/PID/status) before and after. Memory is flat when the per-stream
// state goes with the stream and every history is bounded.
//
//   build/bench/control_plane_churn_bench                # 50,000 streams
//   XDSFED_CHURN_STREAMS=5000 build/bench/control_plane_churn_bench
//   XDSFED_CLI=/path/to/other/xdsfed build/bench/...     # another build
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "grpcpp/grpcpp.h"

#ifndef XDSFED_CLI_PATH
#error "XDSFED_CLI_PATH must name the built xdsfed binary"
#endif

namespace {

using envoy::service::discovery::v3::AggregatedDiscoveryService;
using envoy::service::discovery::v3::DiscoveryRequest;
using envoy::service::discovery::v3::DiscoveryResponse;

constexpr char kCds[] = "type.googleapis.com/envoy.config.cluster.v3.Cluster";

long RssKiB(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      long kib = 0;
      absl::SimpleAtoi(absl::StripAsciiWhitespace(
                           absl::string_view(line).substr(6, line.size() - 9)),
                       &kib);
      return kib;
    }
  }
  return -1;
}

void BM_ControlPlaneChurn(benchmark::State& state) {
  const char* env_streams = std::getenv("XDSFED_CHURN_STREAMS");
  const int streams = env_streams ? std::atoi(env_streams) : 50000;
  const char* env_cli = std::getenv("XDSFED_CLI");
  const std::string cli = env_cli ? env_cli : XDSFED_CLI_PATH;
  char dir[] = "/tmp/churn_bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    state.SkipWithError("mkdtemp");
    return;
  }
  const std::string snapshot = absl::StrCat(dir, "/snapshot.json");
  std::ofstream(snapshot)
      << R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":)"
      << R"({"c1":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}}}})";
  int out[2];
  if (pipe(out) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(cli.c_str(), cli.c_str(), "control-plane", "--listen", "127.0.0.1:0",
          "--snapshot", snapshot.c_str(), nullptr);
    _exit(127);
  }
  close(out[1]);
  std::string first_line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') first_line.push_back(c);
  const size_t at = first_line.find("\"port\":");
  int port = 0;
  if (at != std::string::npos) port = std::atoi(first_line.c_str() + at + 7);
  if (port == 0) {
    state.SkipWithError(("control plane did not start: " + first_line).c_str());
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return;
  }
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                     grpc::InsecureChannelCredentials());
  auto stub = AggregatedDiscoveryService::NewStub(channel);
  auto one_stream = [&]() {
    grpc::ClientContext context;
    auto stream = stub->StreamAggregatedResources(&context);
    DiscoveryRequest request;
    request.mutable_node()->set_id("churn");
    request.set_type_url(kCds);
    request.add_resource_names("c1");
    stream->Write(request);
    DiscoveryResponse response;
    if (!stream->Read(&response)) return false;
    request.set_version_info(response.version_info());
    request.set_response_nonce(response.nonce());
    stream->Write(request);
    stream->WritesDone();
    return stream->Finish().ok();
  };
  for (int i = 0; i < 100; ++i) one_stream();  // warm up
  const long before = RssKiB(pid);
  int ok = 0;
  for (auto _ : state) {
    for (int i = 0; i < streams; ++i) ok += one_stream() ? 1 : 0;
  }
  usleep(500 * 1000);  // let the last streams end on the server
  const long after = RssKiB(pid);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::system(absl::StrCat("rm -rf ", dir).c_str());
  state.counters["streams"] = streams;
  state.counters["streams_ok"] = ok;
  state.counters["rss_before_MB"] = before / 1024.0;
  state.counters["rss_after_MB"] = after / 1024.0;
  state.counters["bytes_per_stream"] =
      (after - before) * 1024.0 / static_cast<double>(streams);
}
BENCHMARK(BM_ControlPlaneChurn)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
