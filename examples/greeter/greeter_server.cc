// greeter_server: helloworld.Greeter on an xDS-enabled server. It serves
// what its control plane says (the Listener for its address: filter chains,
// routes) and reports its serving state; SIGTERM (or SIGINT) stops it
// gracefully: no new connections, running RPCs get 5 seconds.
//
//   GRPC_XDS_BOOTSTRAP=bootstrap.json greeter_server [127.0.0.1:50051]
//
// The bootstrap needs server_listener_resource_name_template
// (greeter/bootstrap.json); `xdsfed control-plane --snapshot
// snapshots/greeter.json` serves the Listener. docs/server.md explains each
// step.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "helloworld.grpc.pb.h"
#include "lib/server/xds_server.h"

namespace {

class GreeterService final : public helloworld::Greeter::Service {
 public:
  explicit GreeterService(std::string id) : id_(std::move(id)) {}

  grpc::Status SayHello(grpc::ServerContext* ctx,
                        const helloworld::HelloRequest* request,
                        helloworld::HelloReply* reply) override {
    ctx->AddInitialMetadata("x-served-by", id_);
    std::string message = "Hello " + request->name();
    // A request header the client sent, echoed back.
    auto user = ctx->client_metadata().find("x-user");
    if (user != ctx->client_metadata().end()) {
      message +=
          " (x-user: " + std::string(user->second.data(), user->second.size()) +
          ")";
    }
    reply->set_message(message);
    return grpc::Status::OK;
  }

  grpc::Status SayHelloStream(
      grpc::ServerContext* ctx, const helloworld::HelloRequest* request,
      grpc::ServerWriter<helloworld::HelloReply>* writer) override {
    for (int i = 1; i <= 3; ++i) {
      helloworld::HelloReply reply;
      reply.set_message("Hello " + request->name() + " #" + std::to_string(i));
      if (!writer->Write(reply)) break;
    }
    return grpc::Status::OK;
  }

 private:
  const std::string id_;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  // SIGTERM / SIGINT are taken by sigwait below; blocked before any thread
  // starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  GreeterService service("greeter_server " + address);
  xdsfed::server::XdsServerBuilder builder;
  // Chains without TLS serve plaintext; a DownstreamTlsContext chain would
  // use the bootstrap's certificate providers.
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  builder.set_status_notifier(
      [](const std::string& address, const absl::Status& status) {
        if (status.ok()) {
          std::printf("greeter_server: %s serving\n", address.c_str());
        } else {
          std::printf("greeter_server: %s not serving: %s\n", address.c_str(),
                      status.ToString().c_str());
        }
        std::fflush(stdout);
      });
  absl::StatusOr<std::unique_ptr<xdsfed::server::XdsServer>> server =
      builder.BuildAndStart();
  if (!server.ok()) {
    std::fprintf(stderr, "greeter_server: %s\n",
                 server.status().ToString().c_str());
    return 1;
  }

  int signal = 0;
  sigwait(&signals, &signal);
  std::printf("greeter_server: %s, stopping (running RPCs get 5 s)\n",
              signal == SIGTERM ? "SIGTERM" : "SIGINT");
  std::fflush(stdout);
  (*server)->Shutdown(absl::Seconds(5));
  std::printf("greeter_server: stopped\n");
  return 0;
}
