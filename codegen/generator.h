// protoc-gen-xdsfed: turns our config schemas (schema/*.proto) into plain C++
// structs with jsoncpp loaders that report every error under its field path.
// The .proto files are the single source of truth for field names, JSON keys,
// types and rules (schema/xdsfed_options.proto); nothing at runtime needs
// libprotobuf.
//
// For schema/bootstrap.proto it writes schema/bootstrap.xds.h and .xds.cc:
//
//   package xdsfed.schema;          namespace xdsfed { namespace schema {
//   message XdsServer {             struct XdsServer {
//     string server_uri = 1 [...];    std::string server_uri;
//     ...                             ...
//   }                                 ::Json::Value ToJson() const;
//                                     void LoadFrom(const ::Json::Value&,
//                                                   ValidationErrors*);
//                                     static absl::StatusOr<XdsServer> Parse(
//                                         const ::Json::Value&,
//                                         absl::string_view error_prefix);
//                                   };
//
// The mapping of every proto construct to C++ is described in
// codegen/README.md.
#ifndef XDSFED_CODEGEN_GENERATOR_H_
#define XDSFED_CODEGEN_GENERATOR_H_

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>

#include <string>

namespace xdsfed {
namespace codegen {

class XdsfedGenerator : public google::protobuf::compiler::CodeGenerator {
 public:
  bool Generate(const google::protobuf::FileDescriptor* file,
                const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;
  uint64_t GetSupportedFeatures() const override {
    return FEATURE_PROTO3_OPTIONAL;
  }
};

}  // namespace codegen
}  // namespace xdsfed

#endif  // XDSFED_CODEGEN_GENERATOR_H_
