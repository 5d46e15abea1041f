// How CLI commands find their bootstrap (../shared/CLI.md): --bootstrap FILE,
// else --bootstrap-json TEXT, else the library's own environment lookup.
#ifndef XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_
#define XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "lib/bootstrap/bootstrap.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {

// A bootstrap file that cannot be read (the reader's kNotFound,
// kFailedPrecondition, kPermissionDenied, kResourceExhausted or kDataLoss;
// the library's kFailedPrecondition for GRPC_XDS_BOOTSTRAP, or for no
// bootstrap at all) is an I/O or usage problem (exit 2); anything else that
// fails is an invalid bootstrap (exit 1).
absl::StatusOr<std::shared_ptr<const Bootstrap>> LoadBootstrap(
    const Context& context);

// Exit code for a LoadBootstrap failure, after printing it as
// {"valid":false,...} (I/O problems also go to stderr).
int ReportBootstrapError(const absl::Status& status);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_
