#include "lib/resources/internal/descriptor_signature.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xdsfed {
namespace resources {
namespace internal {

std::string FieldSignature(const google::protobuf::Descriptor* d) {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  for (int i = 0; i < d->field_count(); ++i) fields.push_back(d->field(i));
  std::sort(fields.begin(), fields.end(), [](const auto* a, const auto* b) {
    return a->number() < b->number();
  });
  std::vector<std::string> parts;
  for (const auto* f : fields) {
    std::string part =
        absl::StrCat(f->number(), " ", f->name(), " ", f->type_name());
    if (f->is_repeated()) absl::StrAppend(&part, " repeated");
    if (f->has_optional_keyword()) absl::StrAppend(&part, " optional");
    if (f->containing_oneof() != nullptr) {
      absl::StrAppend(&part, " oneof ", f->containing_oneof()->name());
    }
    if (f->message_type() != nullptr) {
      absl::StrAppend(&part, " ", f->message_type()->full_name());
    }
    if (f->enum_type() != nullptr) {
      absl::StrAppend(&part, " ", f->enum_type()->full_name());
    }
    parts.push_back(std::move(part));
  }
  const bool proto3 =
      d->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3;
  return absl::StrCat(proto3 ? "proto3" : "not proto3", ": ",
                      absl::StrJoin(parts, "; "));
}

std::vector<std::string> SignatureMismatches(
    absl::Span<const ExpectedFields> expected) {
  std::vector<std::string> mismatches;
  for (const ExpectedFields& e : expected) {
    std::string got = FieldSignature(e.descriptor);
    if (got != e.signature) {
      mismatches.push_back(absl::StrCat(e.descriptor->full_name(), ": want <",
                                        e.signature, "> got <", got, ">"));
    }
  }
  return mismatches;
}

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed
