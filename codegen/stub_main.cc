// protoc plugin entry point: protoc --plugin=protoc-gen-xdsfed-stubs=...
// --xdsfed-stubs_out=DIR (stub_generator.h)
#include <google/protobuf/compiler/plugin.h>

#include "codegen/stub_generator.h"

int main(int argc, char* argv[]) {
  xdsfed::codegen::XdsStubGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
