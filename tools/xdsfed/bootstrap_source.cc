#include "tools/xdsfed/bootstrap_source.h"

namespace xdsfed::cli {

absl::StatusOr<std::shared_ptr<const Bootstrap>> LoadBootstrap(
    const Context& context) {
  const bool federation = context.FederationEnabled();
  if (context.flags.bootstrap_file.has_value()) {
    absl::StatusOr<std::string> text =
        ReadFile(*context.flags.bootstrap_file, kMaxBootstrapFileBytes);
    if (!text.ok()) return text.status();
    return Bootstrap::Parse(*text, federation);
  }
  if (context.flags.bootstrap_json.has_value()) {
    return Bootstrap::Parse(*context.flags.bootstrap_json, federation);
  }
  return Bootstrap::FromEnv(federation);
}

int ReportBootstrapError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kDataLoss:
      return ReportIoError(status.message());
    default:
      break;
  }
  PrintJson(InvalidResult(status.message()));
  return kExitInvalid;
}

}  // namespace xdsfed::cli
