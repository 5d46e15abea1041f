// Loads a bootstrap and resolves a target through the installed headers and
// libraries, as an application would.
#include <iostream>

#include "lib/bootstrap/bootstrap.h"
#include "lib/bootstrap/target_resolver.h"

int main() {
  auto bootstrap = xdsfed::Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"127.0.0.1:5000",)"
      R"("channel_creds":[{"type":"insecure"}]}],"authorities":{"a.com":{}}})",
      /*federation=*/true);
  if (!bootstrap.ok()) {
    std::cerr << bootstrap.status() << "\n";
    return 1;
  }
  auto resolved = xdsfed::ResolveXdsTarget(**bootstrap, "xds://a.com/svc");
  if (!resolved.ok()) {
    std::cerr << resolved.status() << "\n";
    return 1;
  }
  std::cout << resolved->listener_resource_name << "\n";
  return resolved->listener_resource_name ==
                 "xdstp://a.com/envoy.config.listener.v3.Listener/svc"
             ? 0
             : 1;
}
