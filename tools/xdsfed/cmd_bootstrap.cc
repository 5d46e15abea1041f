// `xdsfed bootstrap`: parse and validate a bootstrap, print what the library
// will use (../shared/CLI.md).
#include <iostream>
#include <string>

#include "lib/json/json_reader.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

int RunBootstrap(Context& context) {
  if (!context.args.empty()) {
    return UsageError("bootstrap takes no arguments besides its flags");
  }
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  Json::Value out = (*bootstrap)->ToJsonWithoutAuthorities();
  out["valid"] = true;
  out["federation"] = (*bootstrap)->federation();
  Json::Value warnings(Json::arrayValue);
  for (const std::string& warning : (*bootstrap)->warnings()) {
    warnings.append(warning);
  }
  out["warnings"] = std::move(warnings);
  // "authorities" sorts first; it is streamed out one entry at a time, since
  // the Json::Value tree of a bootstrap with many authorities, and even its
  // text, is several times the input (issue 16 item 5). This command prints
  // from this thread only.
  std::cout << "{\"authorities\":{";
  bool first = true;
  for (const auto& [name, authority] : (*bootstrap)->authorities()) {
    if (!first) std::cout << ",";
    first = false;
    std::cout << JsonToString(Json::Value(name)) << ":"
              << JsonToString(Bootstrap::AuthorityToJson(authority));
  }
  std::cout << "}," << JsonToString(out).substr(1) << "\n";
  std::cout.flush();
  return kExitValid;
}

XDSFED_REGISTER_COMMAND(
    "bootstrap", RunBootstrap,
    "bootstrap                     validate a bootstrap, print the result");

}  // namespace
}  // namespace xdsfed::cli
