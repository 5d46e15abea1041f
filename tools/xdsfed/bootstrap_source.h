// How CLI commands find their bootstrap (../shared/CLI.md): --bootstrap FILE,
// else --bootstrap-json TEXT, else the library's own environment lookup.
#ifndef XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_
#define XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "lib/bootstrap/bootstrap.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {

// A file that cannot be read is an I/O problem (kNotFound/kDataLoss, exit 2);
// anything else that fails is an invalid bootstrap (exit 1).
absl::StatusOr<std::shared_ptr<const Bootstrap>> LoadBootstrap(
    const Context& context);

// Exit code for a LoadBootstrap failure, after printing it: I/O problems go
// to stderr, invalid bootstraps are printed as {"valid":false,...}.
int ReportBootstrapError(const absl::Status& status);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_BOOTSTRAP_SOURCE_H_
