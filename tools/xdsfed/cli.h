// Shared plumbing of the `xdsfed` command line (../shared/CLI.md): the
// command registry, global flags, JSON output and exit codes.
//
// A command lives in its own cmd_<name>.cc and registers itself:
//   XDSFED_REGISTER_COMMAND("name", RunName, "xdsfed name [--type T] NAME...");
#ifndef XDSFED_TOOLS_XDSFED_CLI_H_
#define XDSFED_TOOLS_XDSFED_CLI_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/base/file_reader.h"

namespace xdsfed::cli {

// Exit codes of CLI.md.
inline constexpr int kExitValid = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;

// Flags every command accepts, taken out of argv before the command runs.
struct GlobalFlags {
  std::optional<bool> federation;             // --federation=on|off
  std::optional<std::string> bootstrap_file;  // --bootstrap FILE
  std::optional<std::string> bootstrap_json;  // --bootstrap-json TEXT
};

struct Context {
  GlobalFlags flags;
  std::vector<std::string> args;  // what is left after the command name

  // --federation if given, else GRPC_EXPERIMENTAL_XDS_FEDERATION.
  bool FederationEnabled() const;
};

using CommandFn = int (*)(Context& context);

struct Registrar {
  Registrar(const char* name, CommandFn fn, const char* usage);
};

#define XDSFED_REGISTER_COMMAND(name, fn, usage) \
  static ::xdsfed::cli::Registrar xdsfed_registrar_##fn(name, fn, usage)

// Prints one JSON object on one line to stdout.
void PrintJson(const Json::Value& value);

// Prints `line`, one JSON object already serialized, on its own line (for
// output too large to build as one Json::Value).
void PrintJsonLine(const std::string& line);

// For a usage error (exit 2): {"valid":false,"error":message} on stdout,
// so that every outcome is one JSON line, and the message on stderr.
// Returns kExitUsage.
int UsageError(absl::string_view message);

// Reads a whole file through the library's size-capped reader
// (lib/base/file_reader.h); an I/O problem (missing, a directory, over the
// cap) is an error naming the file.
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     size_t max_bytes = kMaxResourceFileBytes);

// For an input that cannot be read (exit 2): the message goes to stderr and,
// so that every outcome is one JSON line, `result` with "valid":false and
// "error" set goes to stdout. Returns kExitUsage.
int ReportIoError(absl::string_view message,
                  Json::Value result = Json::Value(Json::objectValue));

// {"valid":false,"error":...} plus extra keys the caller adds.
Json::Value InvalidResult(absl::string_view error);

// Takes "--flag VALUE" or "--flag=VALUE" out of args. Returns nullopt if the
// flag is absent (the last value if it is repeated); sets *missing_value if
// it is present without a value.
std::optional<std::string> TakeFlag(std::vector<std::string>* args,
                                    absl::string_view flag,
                                    bool* missing_value);
// The same for a repeatable flag: every value, in order.
std::vector<std::string> TakeFlagValues(std::vector<std::string>* args,
                                        absl::string_view flag,
                                        bool* missing_value);

// Takes a valueless "--flag" out of args; true if it was there.
bool TakeSwitch(std::vector<std::string>* args, absl::string_view flag);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_CLI_H_
