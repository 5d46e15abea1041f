// ValidationErrors collects every problem found while validating structured
// input, each under the field path where it was found, so that one status
// reports them all:
//
// clang-format off
//   schema::Bootstrap raw;  // as the generated loader read it
//   ValidationErrors errors;
//   {
//     ValidationErrors::ScopedField field(&errors, ".xds_servers");
//     if (raw.xds_servers.empty()) errors.AddError("must be non-empty");
//   }
//   return errors.status("errors validating bootstrap");
//   // errors validating bootstrap: [field:xds_servers error:must be non-empty]
// clang-format on
//
// Field path pieces are appended as given: ".name" for an object key,
// "[3]" for an array index, "[\"key\"]" for a map key (see MapKey()). The
// leading '.' of the full path is dropped. Errors are reported sorted by path;
// a field with several errors prints "errors:[a; b]".
#ifndef XDSFED_LIB_BASE_VALIDATION_ERRORS_H_
#define XDSFED_LIB_BASE_VALIDATION_ERRORS_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

class ValidationErrors {
 public:
  // Beyond this many messages, further ones are counted, not stored, so that
  // hostile input (100,000 bad entries) cannot make the error itself huge.
  static constexpr size_t kMaxErrors = 100;

  // Pushes a field path piece for its lifetime.
  class ScopedField {
   public:
    ScopedField(ValidationErrors* errors, absl::string_view piece)
        : errors_(errors) {
      errors_->PushField(piece);
    }
    ~ScopedField() { errors_->PopField(); }
    ScopedField(const ScopedField&) = delete;
    ScopedField& operator=(const ScopedField&) = delete;

   private:
    ValidationErrors* errors_;
  };

  // The path piece for a map key: ["key"], with '"' and '\' escaped.
  static std::string MapKey(absl::string_view key);

  void PushField(absl::string_view piece);
  void PopField();

  // Records an error at the current field path.
  void AddError(absl::string_view error);

  // True if an error was recorded at the current path or below it.
  bool FieldHasErrors() const;

  // The current path, without the leading '.'.
  std::string CurrentPath() const;

  bool ok() const { return num_errors_ == 0; }
  size_t size() const { return num_errors_; }

  // OK if no errors; otherwise kInvalidArgument with
  // "<prefix>: [field:<path> error:<msg>; ...]".
  absl::Status status(absl::string_view prefix) const;

  // The bracketed list alone ("[field:a error:b]"), or "" when ok().
  std::string Message() const;

 private:
  std::string path_;                  // concatenated pieces
  std::vector<size_t> piece_starts_;  // where each pushed piece begins
  std::map<std::string, std::vector<std::string>> errors_;
  size_t num_errors_ = 0;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_VALIDATION_ERRORS_H_
