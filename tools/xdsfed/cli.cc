#include "tools/xdsfed/cli.h"

#include <algorithm>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/base/federation_gate.h"

namespace xdsfed::cli {
namespace {

struct Command {
  CommandFn fn;
  std::string usage;
};

std::map<std::string, Command>& Registry() {
  static auto* registry = new std::map<std::string, Command>();
  return *registry;
}

int PrintUsage(std::ostream& out) {
  out << "usage: xdsfed [--federation=on|off] [--bootstrap FILE | "
         "--bootstrap-json TEXT] COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& [name, command] : Registry()) {
    out << "  " << command.usage << "\n";
  }
  return kExitUsage;
}

// Takes the global flags out of argv wherever they stand.
bool ParseGlobalFlags(std::vector<std::string>* args, GlobalFlags* flags) {
  bool missing = false;
  if (auto value = TakeFlag(args, "--federation", &missing)) {
    if (*value == "on") {
      flags->federation = true;
    } else if (*value == "off") {
      flags->federation = false;
    } else {
      UsageError("--federation takes on or off");
      return false;
    }
  }
  flags->bootstrap_file = TakeFlag(args, "--bootstrap", &missing);
  flags->bootstrap_json = TakeFlag(args, "--bootstrap-json", &missing);
  if (missing) {
    UsageError("a flag is missing its value");
    return false;
  }
  if (flags->bootstrap_file && flags->bootstrap_json) {
    UsageError("give --bootstrap or --bootstrap-json, not both");
    return false;
  }
  return true;
}

}  // namespace

Registrar::Registrar(const char* name, CommandFn fn, const char* usage) {
  Registry()[name] = Command{fn, usage};
}

bool Context::FederationEnabled() const {
  if (flags.federation.has_value()) return *flags.federation;
  return FederationEnabledFromEnv();
}

void PrintJson(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  builder["emitUTF8"] = true;
  PrintJsonLine(Json::writeString(builder, value));
}

void PrintJsonLine(const std::string& line) {
  // Events arrive on several threads (client, DNS); lines must not mix.
  static std::mutex* mu = new std::mutex;
  std::lock_guard<std::mutex> lock(*mu);
  std::cout << line << "\n";
  std::cout.flush();
}

namespace {

// The message half of a usage or I/O error (stderr).
void PrintErrorMessage(absl::string_view message) {
  std::cerr << "xdsfed: " << message << "\n";
}

}  // namespace

int UsageError(absl::string_view message) {
  // Every outcome is one JSON line (issue 29 item 6): a usage error too.
  PrintJson(InvalidResult(message));
  PrintErrorMessage(message);
  return kExitUsage;
}

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     size_t max_bytes) {
  return ReadFileCapped(path, max_bytes);
}

int ReportIoError(absl::string_view message, Json::Value result) {
  result["valid"] = false;
  result["error"] = std::string(message);
  PrintJson(result);
  PrintErrorMessage(message);
  return kExitUsage;
}

Json::Value InvalidResult(absl::string_view error) {
  Json::Value out(Json::objectValue);
  out["valid"] = false;
  out["error"] = std::string(error);
  return out;
}

std::vector<std::string> TakeFlagValues(std::vector<std::string>* args,
                                        absl::string_view flag,
                                        bool* missing_value) {
  std::vector<std::string> values;
  for (size_t i = 0; i < args->size();) {
    const std::string& arg = (*args)[i];
    if (arg == flag) {
      if (i + 1 >= args->size()) {
        *missing_value = true;
        args->erase(args->begin() + i);
        continue;
      }
      values.push_back((*args)[i + 1]);
      args->erase(args->begin() + i, args->begin() + i + 2);
      continue;
    }
    if (absl::StartsWith(arg, flag) && arg.size() > flag.size() &&
        arg[flag.size()] == '=') {
      values.push_back(arg.substr(flag.size() + 1));
      args->erase(args->begin() + i);
      continue;
    }
    ++i;
  }
  return values;
}

std::optional<std::string> TakeFlag(std::vector<std::string>* args,
                                    absl::string_view flag,
                                    bool* missing_value) {
  std::vector<std::string> values = TakeFlagValues(args, flag, missing_value);
  if (values.empty()) return std::nullopt;
  return std::move(values.back());
}

bool TakeSwitch(std::vector<std::string>* args, absl::string_view flag) {
  auto it = std::find(args->begin(), args->end(), flag);
  if (it == args->end()) return false;
  args->erase(it);
  return true;
}

}  // namespace xdsfed::cli

int main(int argc, char** argv) {
  using namespace xdsfed::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    UsageError("no command given");
    return PrintUsage(std::cerr);
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintUsage(std::cout);
    return kExitValid;
  }
  Context context;
  if (!ParseGlobalFlags(&args, &context.flags)) return kExitUsage;
  if (args.empty()) {
    UsageError("no command given");
    return PrintUsage(std::cerr);
  }
  auto it = Registry().find(args[0]);
  if (it == Registry().end()) {
    UsageError(absl::StrCat("unknown command: ", args[0]));
    return PrintUsage(std::cerr);
  }
  context.args.assign(args.begin() + 1, args.end());
  // The library returns statuses and never throws; this is the last fence
  // for anything that still would (an allocation failure, a missed jsoncpp
  // call): one JSON line and exit 2 instead of an abort.
  try {
    return it->second.fn(context);
  } catch (const std::exception& e) {
    return ReportIoError(absl::StrCat("internal error: ", e.what()));
  } catch (...) {
    return ReportIoError("internal error: unknown exception");
  }
}
