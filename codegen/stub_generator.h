// protoc-gen-xdsfed-stubs: for each service of a .proto, an xDS stub class
// beside gRPC's generated code, so that a call through an XdsChannel reads
// like a call on a generated stub (issue 26 item 3):
//
//   service Greeter {                  class GreeterXdsStub {
//     rpc SayHello(HelloRequest)        public:
//         returns (HelloReply);          explicit GreeterXdsStub(
//   }                                        xdsfed::channel::XdsChannel&);
//                                          grpc::Status SayHello(
//                                              grpc::ClientContext*,
//                                              const HelloRequest&,
//                                              HelloReply*, ...);
//                                          class async { ... };
//                                        };
//
// written to <file>.xds_stub.h (header-only; it includes <file>.grpc.pb.h,
// which protoc's grpc_cpp_plugin writes beside it). Each method takes the
// generated grpc++ stub's arguments -- sync, callback (`async()`) and
// streaming -- plus optional routing headers, and calls lib/channel's
// helpers (unary.h, streaming.h, streaming_callback.h) with the method path
// filled in. The mapping is in codegen/README.md.
#ifndef XDSFED_CODEGEN_STUB_GENERATOR_H_
#define XDSFED_CODEGEN_STUB_GENERATOR_H_

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>

#include <string>

namespace xdsfed {
namespace codegen {

class XdsStubGenerator : public google::protobuf::compiler::CodeGenerator {
 public:
  bool Generate(const google::protobuf::FileDescriptor* file,
                const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;
  uint64_t GetSupportedFeatures() const override {
    return FEATURE_PROTO3_OPTIONAL;
  }
};

// The C++ name protoc gives a message: `::pkg::sub::Outer_Inner`.
std::string CppMessageName(const google::protobuf::Descriptor* message);

}  // namespace codegen
}  // namespace xdsfed

#endif  // XDSFED_CODEGEN_STUB_GENERATOR_H_
