// Bootstrap load time: text in -> validated Bootstrap out, for a typical
// federation bootstrap (the A47 "Multiple Authorities" example plus node and
// certificate providers) and for a larger one with many authorities.
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "lib/base/check.h"
#include "lib/bootstrap/bootstrap.h"

namespace xdsfed {
namespace {

std::string TypicalBootstrap(int extra_authorities) {
  std::string authorities = absl::StrCat(
      R"("xds.authority.com":{"client_listener_resource_name_template":)",
      R"("xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234"},)",
      R"("xds.other.com":{"xds_servers":[{"server_uri":"xds-server.other.com",)",
      R"("channel_creds":[{"type":"google_default"}]}]})");
  for (int i = 0; i < extra_authorities; ++i) {
    absl::StrAppend(
        &authorities, ",\"authority-", i,
        R"(.example.com":{"xds_servers":[{"server_uri":"xds-)", i % 4,
        R"(.example.com:443","channel_creds":[{"type":"insecure"}],"server_features":["ignore_resource_deletion"]}]})");
  }
  return absl::StrCat(
      R"({"xds_servers":[{"server_uri":"xds-server.authority.com",)",
      R"("channel_creds":[{"type":"google_default"}],"server_features":["ignore_resource_deletion"]}],)",
      R"("node":{"id":"projects/1234/networks/default/nodes/5678","cluster":"cluster",)",
      R"("locality":{"zone":"us-central1-a"},"metadata":{"TRAFFICDIRECTOR_NETWORK_NAME":"default"}},)",
      R"("client_default_listener_resource_name_template":)",
      R"("xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",)",
      R"("server_listener_resource_name_template":)",
      R"("xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/server/%s?project_id=1234",)",
      R"("certificate_providers":{"default":{"plugin_name":"file_watcher",)",
      R"("config":{"certificate_file":"/certs/cert.pem","private_key_file":"/certs/key.pem",)",
      R"("ca_certificate_file":"/certs/ca.pem","refresh_interval":"600s"}}},)",
      R"("authorities":{)", authorities, "}}");
}

void BM_LoadBootstrap(benchmark::State& state) {
  const std::string text = TypicalBootstrap(static_cast<int>(state.range(0)));
  XDSFED_CHECK(Bootstrap::Parse(text, true).ok());
  for (auto _ : state) {
    benchmark::DoNotOptimize(Bootstrap::Parse(text, true));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * text.size());
  state.counters["json_bytes"] = text.size();
  state.counters["authorities"] = state.range(0) + 2;
}
// 0: the typical federation bootstrap; 100: a large fleet config.
BENCHMARK(BM_LoadBootstrap)->Arg(0)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xdsfed

BENCHMARK_MAIN();
