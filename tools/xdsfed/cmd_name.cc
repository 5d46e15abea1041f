// `xdsfed name [--type TYPE] NAME...`: how the library reads xDS resource
// names — old-style or xdstp:, their parts and canonical form (docs/cli.md,
// gRFC A47 §Resource Cache, cncf/xds TP1). TYPE is a type URL or a short
// form as `watch` takes it (Listener, lds, ...).
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lib/name/resource_name.h"
#include "lib/resources/resource_type.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

Json::Value NameToJson(const ResourceName& name, absl::string_view input) {
  Json::Value out(Json::objectValue);
  out["valid"] = true;
  out["input"] = std::string(input);
  out["old_style"] = name.old_style;
  out["authority"] =
      name.old_style ? Json::Value() : Json::Value(name.authority);
  out["resource_type"] =
      name.old_style ? Json::Value() : Json::Value(name.type);
  out["id"] = name.id;
  Json::Value params(Json::objectValue);
  for (const auto& [key, value] : name.context_params) params[key] = value;
  out["context_params"] = std::move(params);
  out["normalized"] = name.ToString();
  return out;
}

int RunName(Context& context) {
  bool missing = false;
  std::optional<std::string> type = TakeFlag(&context.args, "--type", &missing);
  if (missing) return UsageError("--type needs a value: a type URL");
  std::vector<std::string> names;
  bool flags_done = false;
  for (const std::string& arg : context.args) {
    if (!flags_done && arg == "--") {
      flags_done = true;
    } else if (!flags_done && absl::StartsWith(arg, "--")) {
      return UsageError("unknown flag " + arg +
                        "; usage: xdsfed name [--type TYPE] NAME...");
    } else {
      names.push_back(arg);
    }
  }
  if (names.empty()) {
    return UsageError("usage: xdsfed name [--type TYPE] NAME...");
  }
  // The short forms `watch` and `validate` take (Listener, lds, ...) name
  // their type; any other type URL
  // ("type.googleapis.com/envoy.config.listener.v3.Listener") is compared on
  // its bare name, the part after the last '/'.
  std::string expected_type;
  if (const resources::ResourceType* known =
          type.has_value() ? resources::FindResourceType(*type) : nullptr) {
    expected_type = std::string(known->type_name());
  } else if (type.has_value()) {
    const size_t slash = type->rfind('/');
    expected_type =
        slash == std::string::npos ? *type : type->substr(slash + 1);
    if (expected_type.empty()) {
      return UsageError("--type needs a type URL or type name, got \"" + *type +
                        "\"");
    }
  }
  const bool federation = context.FederationEnabled();
  int exit_code = kExitValid;
  for (const std::string& input : names) {
    auto name = ResourceName::Parse(input, federation, expected_type);
    if (name.ok()) {
      PrintJson(NameToJson(*name, input));
    } else {
      Json::Value out = InvalidResult(name.status().message());
      out["input"] = input;
      PrintJson(out);
      exit_code = kExitInvalid;
    }
  }
  return exit_code;
}

XDSFED_REGISTER_COMMAND(
    "name", RunName,
    "name [--type TYPE] NAME...  parse and normalize xDS resource names");

}  // namespace
}  // namespace xdsfed::cli
