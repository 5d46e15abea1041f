// Early-return helpers for absl::Status / absl::StatusOr.
//
// abseil 20220623 (Debian 12) has no ABSL_RETURN_IF_ERROR, so we keep our own:
// clang-format off
//   XDSFED_ASSIGN_OR_RETURN(std::shared_ptr<const Bootstrap> bootstrap,
//                           Bootstrap::FromEnv(FederationEnabledFromEnv()));
//   XDSFED_RETURN_IF_ERROR(ResolveXdsTarget(*bootstrap, "xds:///svc").status());
// clang-format on
#ifndef XDSFED_LIB_BASE_STATUS_MACROS_H_
#define XDSFED_LIB_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define XDSFED_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status xdsfed_status_ = (expr);          \
    if (!xdsfed_status_.ok()) return xdsfed_status_; \
  } while (false)

#define XDSFED_STATUS_CONCAT_INNER_(a, b) a##b
#define XDSFED_STATUS_CONCAT_(a, b) XDSFED_STATUS_CONCAT_INNER_(a, b)

#define XDSFED_ASSIGN_OR_RETURN(lhs, rexpr) \
  XDSFED_ASSIGN_OR_RETURN_IMPL_(            \
      XDSFED_STATUS_CONCAT_(xdsfed_statusor_, __LINE__), lhs, rexpr)

#define XDSFED_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

#endif  // XDSFED_LIB_BASE_STATUS_MACROS_H_
