#include "lib/base/validation_errors.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xdsfed {

std::string ValidationErrors::MapKey(absl::string_view key) {
  std::string out = "[\"";
  out.reserve(key.size() + 4);
  for (char c : key) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out += "\"]";
  return out;
}

void ValidationErrors::PushField(absl::string_view piece) {
  piece_starts_.push_back(path_.size());
  path_.append(piece.data(), piece.size());
}

void ValidationErrors::PopField() {
  if (piece_starts_.empty()) return;
  path_.resize(piece_starts_.back());
  piece_starts_.pop_back();
}

std::string ValidationErrors::CurrentPath() const {
  absl::string_view path = path_;
  if (!path.empty() && path.front() == '.') path.remove_prefix(1);
  return std::string(path);
}

void ValidationErrors::AddError(absl::string_view error) {
  ++num_errors_;
  if (num_errors_ > kMaxErrors) return;
  errors_[CurrentPath()].emplace_back(error);
}

bool ValidationErrors::FieldHasErrors() const {
  const std::string prefix = CurrentPath();
  auto it = errors_.lower_bound(prefix);
  if (it == errors_.end()) return false;
  absl::string_view found = it->first;
  if (found.substr(0, prefix.size()) != prefix) return false;
  // Below the current field means the next character starts a new piece.
  return found.size() == prefix.size() || prefix.empty() ||
         found[prefix.size()] == '.' || found[prefix.size()] == '[';
}

std::string ValidationErrors::Message() const {
  if (num_errors_ == 0) return "";
  std::vector<std::string> parts;
  parts.reserve(errors_.size() + 1);
  for (const auto& [field, messages] : errors_) {
    if (messages.size() == 1) {
      parts.push_back(absl::StrCat("field:", field, " error:", messages[0]));
    } else {
      parts.push_back(absl::StrCat("field:", field, " errors:[",
                                   absl::StrJoin(messages, "; "), "]"));
    }
  }
  if (num_errors_ > kMaxErrors) {
    parts.push_back(
        absl::StrCat(num_errors_ - kMaxErrors, " more errors not shown"));
  }
  return absl::StrCat("[", absl::StrJoin(parts, "; "), "]");
}

absl::Status ValidationErrors::status(absl::string_view prefix) const {
  if (num_errors_ == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(prefix, ": ", Message()));
}

}  // namespace xdsfed
