#include "lib/resources/internal/wire_nesting.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xdsfed::resources {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

bool ReadVarint(absl::string_view bytes, size_t end, size_t* pos,
                uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return false;
    const uint8_t byte = static_cast<uint8_t>(bytes[(*pos)++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The message type field `number` of `type` holds, or nullptr (unknown
// field, scalar, or unknown enclosing type).
const Descriptor* SubmessageType(const Descriptor* type, uint64_t number,
                                 FieldDescriptor::Type want) {
  if (type == nullptr || number > INT32_MAX) return nullptr;
  const FieldDescriptor* field =
      type->FindFieldByNumber(static_cast<int>(number));
  if (field == nullptr || field->type() != want) return nullptr;
  return field->message_type();
}

}  // namespace

int WireNestingDepth(const Descriptor& type, absl::string_view bytes,
                     int stop_after) {
  struct Frame {
    const Descriptor* type;  // nullptr inside an unknown group
    size_t end;              // where a length-delimited message ends
    uint64_t group = 0;      // the field number of an open group, else 0
  };
  std::vector<Frame> stack = {{&type, bytes.size()}};
  int deepest = 0;
  size_t pos = 0;
  while (!stack.empty()) {
    const Frame frame = stack.back();
    if (frame.group == 0 && pos == frame.end) {
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0;
    if (!ReadVarint(bytes, frame.end, &pos, &tag)) return deepest;
    const uint64_t number = tag >> 3;
    uint64_t value = 0;
    switch (tag & 7) {
      case 0:  // varint
        if (!ReadVarint(bytes, frame.end, &pos, &value)) return deepest;
        break;
      case 1:  // fixed64
        if (frame.end - pos < 8) return deepest;
        pos += 8;
        break;
      case 5:  // fixed32
        if (frame.end - pos < 4) return deepest;
        pos += 4;
        break;
      case 2: {  // length-delimited: a submessage if the field says so
        if (!ReadVarint(bytes, frame.end, &pos, &value) ||
            value > frame.end - pos) {
          return deepest;
        }
        const Descriptor* sub =
            SubmessageType(frame.type, number, FieldDescriptor::TYPE_MESSAGE);
        if (sub == nullptr) {
          pos += value;
          break;
        }
        stack.push_back({sub, pos + value});
        break;
      }
      case 3:  // start group (known or not, libprotobuf recurses into it)
        stack.push_back(
            {SubmessageType(frame.type, number, FieldDescriptor::TYPE_GROUP),
             frame.end, number});
        break;
      case 4:  // end group
        if (frame.group != number) return deepest;
        stack.pop_back();
        continue;
      default:
        return deepest;
    }
    const int depth = static_cast<int>(stack.size()) - 1;
    if (depth > deepest) deepest = depth;
    if (deepest > stop_after) return deepest;
  }
  return deepest;
}

std::string DecodeFailureMessage(absl::string_view prefix,
                                 const Descriptor& type,
                                 absl::string_view bytes) {
  std::string message =
      absl::StrCat(prefix, ": not a serialized ", type.full_name());
  if (WireNestingDepth(type, bytes) > kProtobufNestingLimit) {
    absl::StrAppend(&message,
                    ": messages nest deeper than protobuf's limit of ",
                    kProtobufNestingLimit, " levels");
  }
  return message;
}

}  // namespace xdsfed::resources
