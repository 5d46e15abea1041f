// greeter_client: helloworld.Greeter through an XdsChannel with the
// generated xDS stub (helloworld::GreeterXdsStub, from
// xdsfed_generate_stubs): a unary call with a deadline and a request header,
// a server-streaming call, and a call whose deadline has passed.
//
//   GRPC_XDS_BOOTSTRAP=bootstrap.json greeter_client [xds:///greeter] [name]
//
// Exits 0 when every call went as shown. docs/channel.md explains each
// step.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "helloworld.xds_stub.h"
#include "lib/base/federation_gate.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/xds_channel.h"

namespace {

std::chrono::system_clock::time_point In(std::chrono::milliseconds d) {
  return std::chrono::system_clock::now() + d;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string target = argc > 1 ? argv[1] : "xds:///greeter";
  const std::string name = argc > 2 ? argv[2] : "world";

  auto bootstrap =
      xdsfed::Bootstrap::FromEnv(xdsfed::FederationEnabledFromEnv());
  if (!bootstrap.ok()) {
    std::fprintf(stderr, "%s\n", bootstrap.status().ToString().c_str());
    return 1;
  }
  auto channel = xdsfed::channel::XdsChannel::Create(*bootstrap, target, {});
  if (!channel.ok()) {
    std::fprintf(stderr, "%s\n", channel.status().ToString().c_str());
    return 1;
  }
  helloworld::GreeterXdsStub stub(**channel);
  int failures = 0;

  // Unary, with a deadline (the first call also waits for the xDS
  // configuration within it) and a request header: sent with AddMetadata,
  // and given to the stub so that route header matchers would see it too.
  {
    helloworld::HelloRequest request;
    request.set_name(name);
    helloworld::HelloReply reply;
    grpc::ClientContext ctx;
    ctx.set_deadline(In(std::chrono::seconds(5)));
    ctx.AddMetadata("x-user", "alice");
    const xdsfed::channel::MetadataEntry routing[] = {{"x-user", "alice"}};
    grpc::Status status = stub.SayHello(&ctx, request, &reply, routing);
    if (!status.ok()) {
      std::printf("SayHello: %d %s\n", status.error_code(),
                  status.error_message().c_str());
      ++failures;
    } else {
      auto served_by = ctx.GetServerInitialMetadata().find("x-served-by");
      std::string by =
          served_by == ctx.GetServerInitialMetadata().end()
              ? "?"
              : std::string(served_by->second.data(), served_by->second.size());
      std::printf("SayHello: %s [x-served-by: %s]\n", reply.message().c_str(),
                  by.c_str());
    }
  }

  // Server streaming.
  {
    helloworld::HelloRequest request;
    request.set_name(name);
    grpc::ClientContext ctx;
    ctx.set_deadline(In(std::chrono::seconds(5)));
    auto replies = stub.SayHelloStream(&ctx, request);
    helloworld::HelloReply reply;
    int count = 0;
    while (replies->Read(&reply)) {
      std::printf("SayHelloStream: %s\n", reply.message().c_str());
      ++count;
    }
    grpc::Status status = replies->Finish();
    std::printf("SayHelloStream: %d replies, status %d\n", count,
                status.error_code());
    if (!status.ok() || count != 3) ++failures;
  }

  // A deadline that has already passed: DEADLINE_EXCEEDED, nothing sent.
  {
    helloworld::HelloRequest request;
    request.set_name(name);
    helloworld::HelloReply reply;
    grpc::ClientContext ctx;
    ctx.set_deadline(In(std::chrono::milliseconds(-1)));
    grpc::Status status = stub.SayHello(&ctx, request, &reply);
    std::printf("SayHello, deadline passed: %s\n",
                status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                    ? "DEADLINE_EXCEEDED"
                    : status.error_message().c_str());
    if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
