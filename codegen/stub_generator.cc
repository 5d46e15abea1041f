#include "codegen/stub_generator.h"

#include <google/protobuf/io/printer.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace xdsfed {
namespace codegen {
namespace {

namespace pb = ::google::protobuf;
using Vars = std::map<std::string, std::string>;

std::string CppNamespace(absl::string_view package) {
  if (package.empty()) return "";
  return absl::StrCat("::", absl::StrReplaceAll(package, {{".", "::"}}));
}

std::string IncludeGuard(absl::string_view file_name) {
  std::string guard = "XDSFED_STUB_";
  for (char c : file_name) {
    guard +=
        std::isalnum(static_cast<unsigned char>(c))
            ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
            : '_';
  }
  return guard + "_XDS_STUB_H_";
}

// The variables one method's text uses.
Vars MethodVars(const pb::MethodDescriptor* method) {
  const pb::ServiceDescriptor* service = method->service();
  const std::string stub =
      absl::StrCat(CppNamespace(service->file()->package()),
                   "::", service->name(), "::Stub");
  return {
      {"Method", method->name()},
      {"path", absl::StrCat("/", service->full_name(), "/", method->name())},
      {"Stub", stub},
      {"Request", CppMessageName(method->input_type())},
      {"Response", CppMessageName(method->output_type())},
  };
}

// Sync methods: the generated Stub's signatures, plus routing headers.
void PrintSyncMethod(pb::io::Printer& p, const pb::MethodDescriptor* method) {
  Vars v = MethodVars(method);
  p.Print(v, "// $path$\n");
  if (!method->client_streaming() && !method->server_streaming()) {
    p.Print(v,
            "::grpc::Status $Method$(::grpc::ClientContext* context,\n"
            "    const $Request$& request, $Response$* response,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  return ::xdsfed::channel::Unary(*channel_, \"$path$\",\n"
            "      &$Stub$::$Method$, context, request, response,\n"
            "      routing_headers);\n"
            "}\n");
  } else if (!method->client_streaming()) {
    p.Print(v,
            "std::unique_ptr<::xdsfed::channel::TrackedStream<\n"
            "    ::grpc::ClientReader<$Response$>>>\n"
            "$Method$(::grpc::ClientContext* context, const $Request$& "
            "request,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  return std::make_unique<::xdsfed::channel::TrackedStream<\n"
            "      ::grpc::ClientReader<$Response$>>>(\n"
            "      ::xdsfed::channel::ServerStreaming(*channel_, \"$path$\",\n"
            "          &$Stub$::$Method$, context, request, "
            "routing_headers));\n"
            "}\n");
  } else if (!method->server_streaming()) {
    p.Print(v,
            "std::unique_ptr<::xdsfed::channel::TrackedStream<\n"
            "    ::grpc::ClientWriter<$Request$>>>\n"
            "$Method$(::grpc::ClientContext* context, $Response$* response,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  return std::make_unique<::xdsfed::channel::TrackedStream<\n"
            "      ::grpc::ClientWriter<$Request$>>>(\n"
            "      ::xdsfed::channel::ClientStreaming(*channel_, \"$path$\",\n"
            "          &$Stub$::$Method$, context, response, "
            "routing_headers));\n"
            "}\n");
  } else {
    p.Print(v,
            "std::unique_ptr<::xdsfed::channel::TrackedStream<\n"
            "    ::grpc::ClientReaderWriter<$Request$, $Response$>>>\n"
            "$Method$(::grpc::ClientContext* context,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  return std::make_unique<::xdsfed::channel::TrackedStream<\n"
            "      ::grpc::ClientReaderWriter<$Request$, $Response$>>>(\n"
            "      ::xdsfed::channel::BidiStreaming(*channel_, \"$path$\",\n"
            "          &$Stub$::$Method$, context, routing_headers));\n"
            "}\n");
  }
}

// Callback methods (the generated Stub::async's), plus routing headers; a
// streaming method's reactor is an xdsfed TrackedReactor of grpc++'s.
void PrintCallbackMethod(pb::io::Printer& p,
                         const pb::MethodDescriptor* method) {
  Vars v = MethodVars(method);
  p.Print(v, "// $path$\n");
  if (!method->client_streaming() && !method->server_streaming()) {
    p.Print(v,
            "void $Method$(::grpc::ClientContext* context,\n"
            "    const $Request$* request, $Response$* response,\n"
            "    std::function<void(::grpc::Status)> on_done,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  ::xdsfed::channel::UnaryCallback<$Stub$>(*channel_, "
            "\"$path$\",\n"
            "      &$Stub$::async::$Method$, context, request, response,\n"
            "      std::move(on_done), routing_headers);\n"
            "}\n");
  } else if (!method->client_streaming()) {
    p.Print(v,
            "void $Method$(::grpc::ClientContext* context,\n"
            "    const $Request$* request,\n"
            "    ::xdsfed::channel::TrackedReactor<\n"
            "        ::grpc::ClientReadReactor<$Response$>>* reactor,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  ::xdsfed::channel::ServerStreamingCallback<$Stub$>(*channel_,\n"
            "      \"$path$\", &$Stub$::async::$Method$, context, request,\n"
            "      reactor, routing_headers);\n"
            "}\n");
  } else if (!method->server_streaming()) {
    p.Print(v,
            "void $Method$(::grpc::ClientContext* context,\n"
            "    $Response$* response,\n"
            "    ::xdsfed::channel::TrackedReactor<\n"
            "        ::grpc::ClientWriteReactor<$Request$>>* reactor,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  ::xdsfed::channel::ClientStreamingCallback<$Stub$>(*channel_,\n"
            "      \"$path$\", &$Stub$::async::$Method$, context, response,\n"
            "      reactor, routing_headers);\n"
            "}\n");
  } else {
    p.Print(v,
            "void $Method$(::grpc::ClientContext* context,\n"
            "    ::xdsfed::channel::TrackedReactor<\n"
            "        ::grpc::ClientBidiReactor<$Request$, $Response$>>* "
            "reactor,\n"
            "    RoutingHeaders routing_headers = {}) {\n"
            "  ::xdsfed::channel::BidiStreamingCallback<$Stub$>(*channel_,\n"
            "      \"$path$\", &$Stub$::async::$Method$, context, reactor,\n"
            "      routing_headers);\n"
            "}\n");
  }
}

void PrintService(pb::io::Printer& p, const pb::ServiceDescriptor* service) {
  Vars v = {{"Service", service->name()}, {"full_name", service->full_name()}};
  p.Print(v,
          "\n"
          "// $full_name$ through an xdsfed::channel::XdsChannel: each call "
          "is\n"
          "// routed and load-balanced by xDS (route, cluster, priority,\n"
          "// locality, endpoint), then made with $Service$::Stub on the\n"
          "// chosen endpoint. The methods take $Service$::Stub's arguments,\n"
          "// plus the headers route matchers see (grpc++ cannot read a\n"
          "// ClientContext's metadata back). The channel must outlive the "
          "stub.\n"
          "class $Service$XdsStub {\n"
          " public:\n"
          "  using RoutingHeaders =\n"
          "      ::absl::Span<const ::xdsfed::channel::MetadataEntry>;\n"
          "\n"
          "  explicit $Service$XdsStub(::xdsfed::channel::XdsChannel& "
          "channel)\n"
          "      : channel_(&channel), async_(&channel) {}\n"
          "\n");
  p.Indent();
  for (int i = 0; i < service->method_count(); ++i) {
    PrintSyncMethod(p, service->method(i));
    p.Print("\n");
  }
  p.Outdent();
  p.Print(v,
          "  // The callback API, as $Service$::Stub::async.\n"
          "  class async {\n"
          "   public:\n");
  p.Indent();
  p.Indent();
  for (int i = 0; i < service->method_count(); ++i) {
    PrintCallbackMethod(p, service->method(i));
    p.Print("\n");
  }
  p.Outdent();
  p.Outdent();
  p.Print(v,
          "   private:\n"
          "    friend class $Service$XdsStub;\n"
          "    explicit async(::xdsfed::channel::XdsChannel* channel)\n"
          "        : channel_(channel) {}\n"
          "    ::xdsfed::channel::XdsChannel* channel_;\n"
          "  };\n"
          "  class async* async() { return &async_; }\n"
          "\n"
          " private:\n"
          "  ::xdsfed::channel::XdsChannel* channel_;\n"
          "  class async async_;\n"
          "};\n");
}

}  // namespace

std::string CppMessageName(const pb::Descriptor* message) {
  std::string name = message->name();
  for (const pb::Descriptor* outer = message->containing_type();
       outer != nullptr; outer = outer->containing_type()) {
    name = absl::StrCat(outer->name(), "_", name);
  }
  return absl::StrCat(CppNamespace(message->file()->package()), "::", name);
}

bool XdsStubGenerator::Generate(const pb::FileDescriptor* file,
                                const std::string& parameter,
                                pb::compiler::GeneratorContext* context,
                                std::string* error) const {
  if (!parameter.empty()) {
    *error = absl::StrCat("protoc-gen-xdsfed-stubs takes no parameter, got \"",
                          parameter, "\"");
    return false;
  }
  const std::string stem(absl::StripSuffix(file->name(), ".proto"));
  std::unique_ptr<pb::io::ZeroCopyOutputStream> out(
      context->Open(stem + ".xds_stub.h"));
  pb::io::Printer p(out.get(), '$');
  Vars v = {{"file", file->name()},
            {"guard", IncludeGuard(stem)},
            {"grpc_header", stem + ".grpc.pb.h"}};
  p.Print(v,
          "// Generated by protoc-gen-xdsfed-stubs from $file$. Do not edit.\n"
          "// xDS stubs: codegen/stub_generator.h.\n"
          "#ifndef $guard$\n"
          "#define $guard$\n"
          "\n"
          "#include <functional>\n"
          "#include <memory>\n"
          "#include <utility>\n"
          "\n"
          "#include \"$grpc_header$\"\n"
          "#include \"absl/types/span.h\"\n"
          "#include \"grpcpp/grpcpp.h\"\n"
          "#include \"lib/channel/streaming.h\"\n"
          "#include \"lib/channel/streaming_callback.h\"\n"
          "#include \"lib/channel/unary.h\"\n"
          "#include \"lib/channel/xds_channel.h\"\n");
  const std::vector<std::string> ns =
      file->package().empty() ? std::vector<std::string>{}
                              : absl::StrSplit(file->package(), '.');
  for (const std::string& part : ns) {
    p.Print("\nnamespace $part$ {", "part", part);
  }
  if (!ns.empty()) p.Print("\n");
  for (int i = 0; i < file->service_count(); ++i) {
    PrintService(p, file->service(i));
  }
  for (auto it = ns.rbegin(); it != ns.rend(); ++it) {
    p.Print("\n}  // namespace $part$", "part", *it);
  }
  p.Print(v, "\n\n#endif  // $guard$\n");
  if (p.failed()) {
    *error = absl::StrCat("cannot write ", stem, ".xds_stub.h");
    return false;
  }
  return true;
}

}  // namespace codegen
}  // namespace xdsfed
