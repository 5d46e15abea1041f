#include "lib/base/validation_errors.h"

#include <string>

#include "gtest/gtest.h"
#include "lib/base/status_macros.h"

namespace xdsfed {
namespace {

TEST(ValidationErrorsTest, NoErrorsIsOk) {
  ValidationErrors errors;
  EXPECT_TRUE(errors.ok());
  EXPECT_TRUE(errors.status("prefix").ok());
  EXPECT_EQ(errors.Message(), "");
}

TEST(ValidationErrorsTest, PathsAreJoinedSortedAndGrouped) {
  ValidationErrors errors;
  {
    ValidationErrors::ScopedField a(&errors, ".authorities");
    ValidationErrors::ScopedField key(&errors, ValidationErrors::MapKey("a"));
    ValidationErrors::ScopedField s(&errors, ".xds_servers");
    ValidationErrors::ScopedField i(&errors, "[0]");
    ValidationErrors::ScopedField u(&errors, ".server_uri");
    errors.AddError("field not present");
  }
  {
    ValidationErrors::ScopedField n(&errors, ".node");
    errors.AddError("is not an object");
    errors.AddError("second problem");
  }
  absl::Status status = errors.status("errors validating bootstrap");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "errors validating bootstrap: ["
            "field:authorities[\"a\"].xds_servers[0].server_uri "
            "error:field not present; "
            "field:node errors:[is not an object; second problem]]");
}

TEST(ValidationErrorsTest, MapKeyEscapesQuotes) {
  EXPECT_EQ(ValidationErrors::MapKey("a\"b\\c"), "[\"a\\\"b\\\\c\"]");
}

TEST(ValidationErrorsTest, FieldHasErrorsSeesOnlyItsSubtree) {
  ValidationErrors errors;
  {
    ValidationErrors::ScopedField f(&errors, ".xds_servers");
    ValidationErrors::ScopedField i(&errors, "[0]");
    errors.AddError("bad");
  }
  ValidationErrors::ScopedField f(&errors, ".xds_servers");
  EXPECT_TRUE(errors.FieldHasErrors());
  {
    ValidationErrors::ScopedField i(&errors, "[1]");
    EXPECT_FALSE(errors.FieldHasErrors());
  }
  ValidationErrors other;
  ValidationErrors::ScopedField g(&other, ".xds");
  other.AddError("x");
  ValidationErrors::ScopedField h(&other, "_servers");  // ".xds_servers"
  EXPECT_FALSE(other.FieldHasErrors());
}

TEST(ValidationErrorsTest, ManyErrorsAreCappedButCounted) {
  ValidationErrors errors;
  for (int i = 0; i < 1000; ++i) {
    ValidationErrors::ScopedField f(&errors, "[" + std::to_string(i) + "]");
    errors.AddError("bad");
  }
  EXPECT_EQ(errors.size(), 1000u);
  std::string message = errors.Message();
  EXPECT_NE(message.find("900 more errors not shown"), std::string::npos);
  EXPECT_LT(message.size(), 5000u);
}

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return absl::InvalidArgumentError("odd");
  return x / 2;
}

absl::StatusOr<int> Quarter(int x) {
  XDSFED_ASSIGN_OR_RETURN(int half, Half(x));
  XDSFED_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

absl::Status CheckEven(int x) {
  XDSFED_RETURN_IF_ERROR(Half(x).status());
  return absl::OkStatus();
}

TEST(StatusMacrosTest, PropagateErrorsAndValues) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(3).ok());
}

}  // namespace
}  // namespace xdsfed
