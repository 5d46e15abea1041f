// protoc plugin entry point: protoc --plugin=protoc-gen-xdsfed=...
// --xdsfed_out=DIR
#include <google/protobuf/compiler/plugin.h>

#include "codegen/generator.h"

int main(int argc, char* argv[]) {
  xdsfed::codegen::XdsfedGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
