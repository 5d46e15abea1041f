#include "codegen/generator.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/printer.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/json/proto_duration.h"
#include "schema/xdsfed_options.pb.h"

namespace xdsfed {
namespace codegen {
namespace {

namespace pb = ::google::protobuf;
using pb::Descriptor;
using pb::EnumDescriptor;
using pb::FieldDescriptor;
using pb::FileDescriptor;
using pb::OneofDescriptor;

constexpr absl::string_view kOptionsFile = "schema/xdsfed_options.proto";

// Indentation-aware text buffer.
class Writer {
 public:
  template <typename... Args>
  void L(const Args&... args) {
    std::string line = absl::StrCat(args...);
    if (!line.empty()) out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += line;
    out_ += '\n';
  }
  void In() { ++indent_; }
  void Out() { --indent_; }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  int indent_ = 0;
};

enum class Kind {
  kString,
  kBool,
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kDouble,
  kFloat,
  kEnum,
  kMessage,
  kStruct,    // google.protobuf.Struct -> ::Json::Value (an object)
  kValue,     // google.protobuf.Value -> ::Json::Value (anything)
  kDuration,  // google.protobuf.Duration -> ::absl::Duration
};

enum class Shape {
  kPlain,     // T
  kOptional,  // std::optional<T>
  kBoxed,     // ::xdsfed::Boxed<T>: a message not complete at this point
  kRepeated,  // std::vector<T>, or std::optional<std::vector<T>>
  kMap,       // std::map<std::string, T>, or std::optional<std::map<...>>
};

struct FieldInfo {
  const FieldDescriptor* field = nullptr;
  const FieldDescriptor* element = nullptr;  // the map value for maps
  std::string member;                        // C++ member name
  std::string json_key;
  Kind kind = Kind::kString;
  Shape shape = Shape::kPlain;
  bool presence = false;  // track_presence on a repeated or map field
  options::FieldRules rules;
  std::string element_type;  // C++ type of one element
  std::string cpp_type;      // C++ type of the member
  std::string initializer;   // "" or " = ..." / "{}"
};

std::string CQuote(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

bool IsCppKeyword(absl::string_view name) {
  static const auto* const kKeywords =
      new std::set<absl::string_view>{"alignas",
                                      "alignof",
                                      "and",
                                      "asm",
                                      "auto",
                                      "bool",
                                      "break",
                                      "case",
                                      "catch",
                                      "char",
                                      "class",
                                      "const",
                                      "constexpr",
                                      "continue",
                                      "default",
                                      "delete",
                                      "do",
                                      "double",
                                      "else",
                                      "enum",
                                      "explicit",
                                      "export",
                                      "extern",
                                      "false",
                                      "float",
                                      "for",
                                      "friend",
                                      "goto",
                                      "if",
                                      "inline",
                                      "int",
                                      "long",
                                      "mutable",
                                      "namespace",
                                      "new",
                                      "noexcept",
                                      "not",
                                      "nullptr",
                                      "operator",
                                      "or",
                                      "private",
                                      "protected",
                                      "public",
                                      "register",
                                      "return",
                                      "short",
                                      "signed",
                                      "sizeof",
                                      "static",
                                      "struct",
                                      "switch",
                                      "template",
                                      "this",
                                      "throw",
                                      "true",
                                      "try",
                                      "typedef",
                                      "typeid",
                                      "typename",
                                      "union",
                                      "unsigned",
                                      "using",
                                      "virtual",
                                      "void",
                                      "volatile",
                                      "while",
                                      "xor",
                                      "char8_t",
                                      "char16_t",
                                      "char32_t",
                                      "decltype",
                                      "static_cast",
                                      "wchar_t",
                                      "final",
                                      "override",
                                      "concept",
                                      "requires",
                                      "co_await",
                                      "co_return",
                                      "co_yield",
                                      "const_cast",
                                      "dynamic_cast",
                                      "reinterpret_cast",
                                      "static_assert",
                                      "thread_local"};
  return kKeywords->count(name) > 0;
}

std::string MemberName(const FieldDescriptor* field) {
  std::string name = field->name();
  if (IsCppKeyword(name)) name += "_";
  return name;
}

// protoc fills in json_name (lowerCamelCase) for every field it passes to a
// plugin, so has_json_name() cannot tell an explicit `json_name = "..."`
// apart. The source info can: an explicit option has a location whose path
// ends in FieldDescriptorProto.json_name (10).
constexpr int kJsonNameTag = 10;

std::vector<int> MessagePath(const Descriptor* d) {
  if (d->containing_type() == nullptr) return {4, d->index()};
  std::vector<int> path = MessagePath(d->containing_type());
  path.push_back(3);
  path.push_back(d->index());
  return path;
}

std::vector<int> FieldPath(const FieldDescriptor* f) {
  std::vector<int> path = MessagePath(f->containing_type());
  path.push_back(2);
  path.push_back(f->index());
  return path;
}

// What protoc derives when there is no json_name option.
std::string DefaultJsonName(absl::string_view name) {
  std::string out;
  bool upper_next = false;
  for (char c : name) {
    if (c == '_') {
      upper_next = true;
    } else {
      out += upper_next ? absl::ascii_toupper(c) : c;
      upper_next = false;
    }
  }
  return out;
}

std::string StripProto(absl::string_view name) {
  return std::string(absl::StripSuffix(name, ".proto"));
}

bool IsComment(absl::string_view line) { return !line.empty(); }

void EmitComments(Writer* w, const std::string& comments) {
  std::string text(absl::StripTrailingAsciiWhitespace(comments));
  if (text.empty()) return;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (IsComment(line)) {
      w->L("//", absl::StartsWith(line, " ") ? "" : " ", line);
    } else {
      w->L("//");
    }
  }
}

template <typename D>
std::string LeadingComments(const D* d) {
  pb::SourceLocation location;
  if (!d->GetSourceLocation(&location)) return "";
  return location.leading_comments;
}

class FileGenerator {
 public:
  explicit FileGenerator(const FileDescriptor* file) : file_(file) {
    pb::FileDescriptorProto proto;
    file_->CopySourceCodeInfoTo(&proto);
    for (const pb::SourceCodeInfo::Location& location :
         proto.source_code_info().location()) {
      const auto& path = location.path();
      if (!path.empty() && path[path.size() - 1] == kJsonNameTag) {
        json_name_paths_.insert(std::vector<int>(path.begin(), path.end() - 1));
      }
    }
  }

  bool Run(std::string* header, std::string* source, std::string* error) {
    if (file_->package().empty()) {
      *error = "protoc-gen-xdsfed needs a package (it names the namespace)";
      return false;
    }
    GenerateHeader();
    if (!error_.empty()) {
      *error = error_;
      return false;
    }
    GenerateSource();
    if (!error_.empty()) {
      *error = error_;
      return false;
    }
    *header = h_.str();
    *source = c_.str();
    return true;
  }

 private:
  void Fail(absl::string_view where, absl::string_view what) {
    if (error_.empty()) error_ = absl::StrCat(where, ": ", what);
  }

  // --- names ---

  // C++ name of a message or enum: relative to our namespace if it is in the
  // same package, else fully qualified.
  std::string TypeName(const std::string& full_name,
                       const FileDescriptor* file) const {
    if (file->package() == file_->package()) {
      absl::string_view rel =
          absl::StripPrefix(full_name, absl::StrCat(file_->package(), "."));
      return absl::StrReplaceAll(rel, {{".", "::"}});
    }
    return absl::StrCat("::", absl::StrReplaceAll(full_name, {{".", "::"}}));
  }
  std::string Name(const Descriptor* d) const {
    return TypeName(d->full_name(), d->file());
  }
  std::string Name(const EnumDescriptor* e) const {
    return TypeName(e->full_name(), e->file());
  }

  // --- field analysis ---

  // The JSON key: the proto field name, unless json_name is set explicitly.
  std::string JsonKey(const FieldDescriptor* f) const {
    const bool explicit_json_name =
        json_name_paths_.count(FieldPath(f)) > 0 ||
        (f->has_json_name() && f->json_name() != DefaultJsonName(f->name()));
    return explicit_json_name ? f->json_name() : f->name();
  }

  bool KindOf(const FieldDescriptor* f, Kind* kind) {
    switch (f->type()) {
      case FieldDescriptor::TYPE_STRING:
        *kind = Kind::kString;
        return true;
      case FieldDescriptor::TYPE_BOOL:
        *kind = Kind::kBool;
        return true;
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_SINT32:
      case FieldDescriptor::TYPE_SFIXED32:
        *kind = Kind::kInt32;
        return true;
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_SINT64:
      case FieldDescriptor::TYPE_SFIXED64:
        *kind = Kind::kInt64;
        return true;
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        *kind = Kind::kUInt32;
        return true;
      case FieldDescriptor::TYPE_UINT64:
      case FieldDescriptor::TYPE_FIXED64:
        *kind = Kind::kUInt64;
        return true;
      case FieldDescriptor::TYPE_DOUBLE:
        *kind = Kind::kDouble;
        return true;
      case FieldDescriptor::TYPE_FLOAT:
        *kind = Kind::kFloat;
        return true;
      case FieldDescriptor::TYPE_ENUM:
        *kind = Kind::kEnum;
        return true;
      case FieldDescriptor::TYPE_MESSAGE: {
        const std::string& type = f->message_type()->full_name();
        if (type == "google.protobuf.Struct") {
          *kind = Kind::kStruct;
        } else if (type == "google.protobuf.Value") {
          *kind = Kind::kValue;
        } else if (type == "google.protobuf.Duration") {
          *kind = Kind::kDuration;
        } else if (absl::StartsWith(type, "google.protobuf.")) {
          Fail(f->full_name(), absl::StrCat("unsupported type ", type));
          return false;
        } else {
          *kind = Kind::kMessage;
        }
        return true;
      }
      default:
        Fail(f->full_name(),
             absl::StrCat("unsupported field type ", f->type_name()));
        return false;
    }
  }

  static bool IsNumber(Kind k) {
    return k == Kind::kInt32 || k == Kind::kInt64 || k == Kind::kUInt32 ||
           k == Kind::kUInt64 || k == Kind::kDouble || k == Kind::kFloat;
  }
  static bool IsScalar(Kind k) {
    return IsNumber(k) || k == Kind::kString || k == Kind::kBool ||
           k == Kind::kEnum || k == Kind::kDuration;
  }

  std::string ElementType(const FieldDescriptor* f, Kind kind) const {
    switch (kind) {
      case Kind::kString:
        return "std::string";
      case Kind::kBool:
        return "bool";
      case Kind::kInt32:
        return "int32_t";
      case Kind::kInt64:
        return "int64_t";
      case Kind::kUInt32:
        return "uint32_t";
      case Kind::kUInt64:
        return "uint64_t";
      case Kind::kDouble:
        return "double";
      case Kind::kFloat:
        return "float";
      case Kind::kEnum:
        return Name(f->enum_type());
      case Kind::kMessage:
        return Name(f->message_type());
      case Kind::kStruct:
      case Kind::kValue:
        return "::Json::Value";
      case Kind::kDuration:
        return "::absl::Duration";
    }
    return "";
  }

  // A C++ literal for `text` as a value of the field's type.
  bool DefaultLiteral(const FieldInfo& fi, const std::string& text,
                      std::string* out) {
    const std::string& where = fi.field->full_name();
    switch (fi.kind) {
      case Kind::kString:
        *out = CQuote(text);
        return true;
      case Kind::kBool:
        if (text != "true" && text != "false") {
          Fail(where, "default_value of a bool must be \"true\" or \"false\"");
          return false;
        }
        *out = text;
        return true;
      case Kind::kInt32:
      case Kind::kInt64: {
        int64_t v;
        if (!absl::SimpleAtoi(text, &v) ||
            (fi.kind == Kind::kInt32 &&
             (v < std::numeric_limits<int32_t>::min() ||
              v > std::numeric_limits<int32_t>::max()))) {
          Fail(where, absl::StrCat("default_value \"", text,
                                   "\" is not a valid ", fi.element_type));
          return false;
        }
        *out = IntLiteral(v);
        return true;
      }
      case Kind::kUInt32:
      case Kind::kUInt64: {
        uint64_t v;
        if (!absl::SimpleAtoi(text, &v) ||
            (fi.kind == Kind::kUInt32 &&
             v > std::numeric_limits<uint32_t>::max())) {
          Fail(where, absl::StrCat("default_value \"", text,
                                   "\" is not a valid ", fi.element_type));
          return false;
        }
        *out = absl::StrCat(v, "u");
        return true;
      }
      case Kind::kDouble:
      case Kind::kFloat: {
        double v;
        if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) {
          Fail(where, absl::StrCat("default_value \"", text,
                                   "\" is not a finite number"));
          return false;
        }
        *out = DoubleLiteral(v, fi.kind == Kind::kFloat);
        return true;
      }
      case Kind::kEnum: {
        const pb::EnumValueDescriptor* value =
            fi.element->enum_type()->FindValueByName(text);
        if (value == nullptr) {
          Fail(where,
               absl::StrCat("default_value \"", text, "\" is not a value of ",
                            fi.element->enum_type()->full_name()));
          return false;
        }
        *out = absl::StrCat(fi.element_type, "::", value->name());
        return true;
      }
      case Kind::kDuration: {
        absl::Duration d;
        if (json::ParseProtoDuration(text, &d) != json::DurationParse::kOk) {
          Fail(where, absl::StrCat("default_value \"", text,
                                   "\" is not a duration such as \"600s\""));
          return false;
        }
        *out = DurationLiteral(d);
        return true;
      }
      default:
        Fail(where, "default_value is only for scalar and enum fields");
        return false;
    }
  }

  static std::string IntLiteral(int64_t v) {
    if (v == std::numeric_limits<int64_t>::min()) {
      return "(-9223372036854775807LL - 1)";
    }
    return absl::StrCat(v, (v > 2147483647 || v < -2147483647) ? "LL" : "");
  }

  static std::string DurationLiteral(absl::Duration d) {
    return absl::StrCat("::absl::Nanoseconds(",
                        IntLiteral(absl::ToInt64Nanoseconds(d)), ")");
  }

  static std::string DoubleLiteral(double v, bool is_float) {
    std::string s =
        is_float ? absl::StrFormat("%.9g", v) : absl::StrFormat("%.17g", v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (is_float) s += "f";
    return s;
  }

  bool Analyze(const FieldDescriptor* f, FieldInfo* fi) {
    fi->field = f;
    fi->member = MemberName(f);
    fi->json_key = JsonKey(f);
    fi->rules = f->options().GetExtension(options::field);
    fi->element = f;
    const std::string& where = f->full_name();
    if (f->is_map()) {
      const Descriptor* entry = f->message_type();
      if (entry->map_key()->type() != FieldDescriptor::TYPE_STRING) {
        Fail(where, "map keys must be strings (JSON object keys)");
        return false;
      }
      fi->element = entry->map_value();
      fi->shape = Shape::kMap;
    } else if (f->is_repeated()) {
      fi->shape = Shape::kRepeated;
    }
    if (!KindOf(fi->element, &fi->kind)) return false;
    fi->element_type = ElementType(fi->element, fi->kind);
    const options::FieldRules& r = fi->rules;
    const bool container =
        fi->shape == Shape::kRepeated || fi->shape == Shape::kMap;
    if (r.non_empty() && !container && fi->kind != Kind::kString) {
      Fail(where, "non_empty is only for string, repeated and map fields");
      return false;
    }
    if ((r.has_min() || r.has_max()) && !IsNumber(fi->kind) &&
        fi->kind != Kind::kDuration) {
      Fail(where, "min and max are only for number and Duration fields");
      return false;
    }
    if (r.track_presence() && !container) {
      Fail(where, "track_presence is only for repeated and map fields");
      return false;
    }
    if (r.always_emit() && (r.track_presence() || f->has_presence())) {
      Fail(where,
           "always_emit is not for fields with presence (optional, message, "
           "oneof, track_presence): they write what was loaded");
      return false;
    }
    if (r.has_default_value() && (container || !IsScalar(fi->kind))) {
      Fail(where, "default_value is only for singular scalar and enum fields");
      return false;
    }
    if (r.has_default_value() && r.required()) {
      Fail(where, "a required field cannot have a default_value");
      return false;
    }
    for (const double bound : {r.min(), r.max()}) {
      if (fi->kind == Kind::kDouble || fi->kind == Kind::kFloat ||
          fi->kind == Kind::kDuration) {
        continue;
      }
      if (bound != std::trunc(bound) || std::fabs(bound) > 9.2e18 ||
          ((fi->kind == Kind::kUInt32 || fi->kind == Kind::kUInt64) &&
           bound < 0)) {
        if (r.has_min() || r.has_max()) {
          Fail(where,
               "min and max of an integer field must be integers in "
               "the field's range");
          return false;
        }
      }
    }
    if (container) {
      const std::string inner =
          fi->shape == Shape::kMap
              ? absl::StrCat("std::map<std::string, ", fi->element_type, ">")
              : absl::StrCat("std::vector<", fi->element_type, ">");
      if (fi->kind == Kind::kMessage &&
          !Nameable(fi->element->message_type())) {
        Fail(where,
             "element type is declared later inside another message; "
             "reorder the messages");
        return false;
      }
      if (fi->shape == Shape::kMap && fi->kind == Kind::kMessage &&
          !IsComplete(fi->element->message_type())) {
        Fail(where,
             "map value type is not complete here (a cycle through a "
             "map); use a repeated field instead");
        return false;
      }
      fi->presence = r.track_presence();
      fi->cpp_type =
          fi->presence ? absl::StrCat("std::optional<", inner, ">") : inner;
      return true;
    }
    if (fi->kind == Kind::kMessage) {
      if (IsComplete(fi->element->message_type())) {
        fi->shape = Shape::kOptional;
        fi->cpp_type = absl::StrCat("std::optional<", fi->element_type, ">");
      } else {
        fi->shape = Shape::kBoxed;
        fi->cpp_type = absl::StrCat("::xdsfed::Boxed<", fi->element_type, ">");
      }
      return true;
    }
    if (fi->kind == Kind::kStruct) {
      fi->shape = Shape::kOptional;
      fi->cpp_type = "std::optional<::Json::Value>";
      return true;
    }
    if (fi->kind == Kind::kValue) {
      fi->shape = Shape::kPlain;
      fi->cpp_type = "::Json::Value";
      return true;
    }
    if (r.has_default_value()) {
      std::string literal;
      if (!DefaultLiteral(*fi, r.default_value(), &literal)) return false;
      fi->shape = Shape::kPlain;
      fi->cpp_type = fi->element_type;
      fi->initializer = absl::StrCat(" = ", literal);
      return true;
    }
    if (f->has_presence()) {
      fi->shape = Shape::kOptional;
      fi->cpp_type = absl::StrCat("std::optional<", fi->element_type, ">");
      return true;
    }
    fi->shape = Shape::kPlain;
    fi->cpp_type = fi->element_type;
    if (fi->kind != Kind::kString) fi->initializer = "{}";
    return true;
  }

  // Types of other files come from their (included) headers.
  bool IsComplete(const Descriptor* d) const {
    return d->file() != file_ || complete_.count(d) > 0;
  }

  // A type can be named in a declaration if it is complete, a top-level type
  // of this file (all are forward-declared), or nested in a struct whose
  // body is open or complete (nested types are forward-declared first).
  bool Nameable(const Descriptor* d) const {
    if (d->file() != file_ || complete_.count(d) > 0) return true;
    const Descriptor* parent = d->containing_type();
    return parent == nullptr || complete_.count(parent) > 0 ||
           open_.count(parent) > 0;
  }

  // --- ordering ---

  // The element of `siblings` whose subtree contains d, or -1.
  static int SiblingContaining(const Descriptor* d,
                               const std::vector<const Descriptor*>& siblings) {
    for (; d != nullptr; d = d->containing_type()) {
      for (size_t i = 0; i < siblings.size(); ++i) {
        if (siblings[i] == d) return static_cast<int>(i);
      }
    }
    return -1;
  }

  // Types that must be complete before d's struct (singular message fields
  // and map values, in d and everything nested in it).
  static void HardDeps(const Descriptor* d,
                       std::vector<const Descriptor*>* out) {
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      const FieldDescriptor* e = f->is_map() ? f->message_type()->map_value()
                                             : (f->is_repeated() ? nullptr : f);
      if (e != nullptr && e->type() == FieldDescriptor::TYPE_MESSAGE) {
        out->push_back(e->message_type());
      }
    }
    for (int i = 0; i < d->nested_type_count(); ++i) {
      HardDeps(d->nested_type(i), out);
    }
  }

  // Orders sibling structs so that hard dependencies come first; in a cycle
  // the earliest remaining sibling goes first (its field becomes Boxed).
  static std::vector<const Descriptor*> Order(
      const std::vector<const Descriptor*>& siblings) {
    const size_t n = siblings.size();
    std::vector<std::set<int>> deps(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<const Descriptor*> types;
      HardDeps(siblings[i], &types);
      for (const Descriptor* t : types) {
        int j = SiblingContaining(t, siblings);
        if (j >= 0 && j != static_cast<int>(i)) deps[i].insert(j);
      }
    }
    std::vector<const Descriptor*> out;
    std::vector<bool> done(n, false);
    while (out.size() < n) {
      int pick = -1;
      for (size_t i = 0; i < n && pick < 0; ++i) {
        if (done[i]) continue;
        bool ready = true;
        for (int j : deps[i]) ready = ready && done[j];
        if (ready) pick = static_cast<int>(i);
      }
      if (pick < 0) {  // cycle
        for (size_t i = 0; i < n && pick < 0; ++i) {
          if (!done[i]) pick = static_cast<int>(i);
        }
      }
      done[pick] = true;
      out.push_back(siblings[pick]);
    }
    return out;
  }

  static std::vector<const Descriptor*> NestedStructs(const Descriptor* d) {
    std::vector<const Descriptor*> out;
    for (int i = 0; i < d->nested_type_count(); ++i) {
      if (!d->nested_type(i)->options().map_entry()) {
        out.push_back(d->nested_type(i));
      }
    }
    return out;
  }

  static bool SingleKey(const Descriptor* d) {
    return d->options().GetExtension(options::message).single_key();
  }

  // --- header ---

  void EmitEnum(Writer* w, const EnumDescriptor* e) {
    EmitComments(w, LeadingComments(e));
    w->L("enum class ", e->name(), " {");
    w->In();
    for (int i = 0; i < e->value_count(); ++i) {
      w->L(e->value(i)->name(), " = ", e->value(i)->number(), ",");
    }
    w->Out();
    w->L("};");
    enums_.push_back(e);
  }

  void EmitStruct(Writer* w, const Descriptor* d) {
    EmitComments(w, LeadingComments(d));
    w->L("struct ", d->name(), " {");
    w->In();
    open_.insert(d);
    messages_.push_back(d);
    const std::vector<const Descriptor*> nested = NestedStructs(d);
    for (const Descriptor* n : nested) w->L("struct ", n->name(), ";");
    if (!nested.empty()) w->L("");
    for (int i = 0; i < d->enum_type_count(); ++i) {
      EmitEnum(w, d->enum_type(i));
      w->L("");
    }
    for (const Descriptor* n : Order(nested)) {
      EmitStruct(w, n);
      w->L("");
    }
    for (int i = 0; i < d->field_count(); ++i) {
      FieldInfo& fi = fields_[d->field(i)];
      if (!Analyze(d->field(i), &fi)) return;
      EmitComments(w, LeadingComments(d->field(i)));
      w->L(fi.cpp_type, " ", fi.member, fi.initializer, ";");
    }
    if (SingleKey(d)) {
      w->L("// Members this schema does not know (single_key messages only).");
      w->L("std::map<std::string, ::Json::Value> unknown_fields;");
    }
    if (d->field_count() > 0 || SingleKey(d)) w->L("");
    const std::string& name = d->name();
    // User-provided, so that std::optional<Nested> inside the enclosing
    // struct sees a constructible type even though the default member
    // initializers are only parsed once the enclosing struct is complete.
    w->L(name, "() {}");
    w->L("bool operator==(const ", name, "& other) const;");
    w->L("bool operator!=(const ", name,
         "& other) const { return !(*this == other); }");
    w->L("// The JSON form; Parse(x.ToJson()) == x.");
    w->L("::Json::Value ToJson() const;");
    w->L("// Replaces *this with the value in `json`, recording each problem");
    w->L("// in `errors` under the current path.");
    w->L(
        "void LoadFrom(const ::Json::Value& json, ::xdsfed::ValidationErrors* "
        "errors);");
    w->L(
        "// Errors: kInvalidArgument \"<error_prefix>: [field:... "
        "error:...]\".");
    w->L("static absl::StatusOr<", name,
         "> Parse(const ::Json::Value& json, absl::string_view error_prefix);");
    w->Out();
    w->L("};");
    open_.erase(d);
    complete_.insert(d);
  }

  std::string Guard() const {
    std::string guard = "XDSFED_GEN_";
    for (char c : absl::StrCat(StripProto(file_->name()), "_xds_h")) {
      guard += absl::ascii_isalnum(c) ? absl::ascii_toupper(c) : '_';
    }
    return guard + "_";
  }

  std::vector<std::string> Namespaces() const {
    return absl::StrSplit(file_->package(), '.');
  }

  void GenerateHeader() {
    Writer& w = h_;
    w.L("// Generated by protoc-gen-xdsfed from ", file_->name(),
        ". DO NOT EDIT.");
    w.L("// Structs with JSON loaders; see codegen/README.md for the mapping.");
    const std::string guard = Guard();
    w.L("#ifndef ", guard);
    w.L("#define ", guard);
    w.L("");
    w.L("#include <json/value.h>");
    w.L("");
    w.L("#include <cstdint>");
    w.L("#include <map>");
    w.L("#include <optional>");
    w.L("#include <string>");
    w.L("#include <vector>");
    w.L("");
    w.L("#include \"absl/status/statusor.h\"");
    w.L("#include \"absl/strings/string_view.h\"");
    w.L("#include \"absl/time/time.h\"");
    w.L("#include \"lib/base/validation_errors.h\"");
    w.L("#include \"lib/json/boxed.h\"");
    for (int i = 0; i < file_->dependency_count(); ++i) {
      const std::string& dep = file_->dependency(i)->name();
      if (dep == kOptionsFile || absl::StartsWith(dep, "google/protobuf/")) {
        continue;
      }
      w.L("#include \"", StripProto(dep), ".xds.h\"");
    }
    w.L("");
    for (const std::string& ns : Namespaces()) w.L("namespace ", ns, " {");
    w.L("");
    std::vector<const Descriptor*> top;
    for (int i = 0; i < file_->message_type_count(); ++i) {
      top.push_back(file_->message_type(i));
      w.L("struct ", file_->message_type(i)->name(), ";");
    }
    if (!top.empty()) w.L("");
    for (int i = 0; i < file_->enum_type_count(); ++i) {
      EmitEnum(&w, file_->enum_type(i));
      w.L("");
    }
    for (const Descriptor* d : Order(top)) {
      EmitStruct(&w, d);
      if (!error_.empty()) return;
      w.L("");
    }
    if (!enums_.empty()) {
      w.L("// Enum value names, as written in JSON.");
      for (const EnumDescriptor* e : enums_) {
        w.L("const char* ToName(", Name(e), " value);");
        w.L("bool FromName(absl::string_view name, ", Name(e), "* value);");
      }
      w.L("");
    }
    std::vector<std::string> namespaces = Namespaces();
    std::reverse(namespaces.begin(), namespaces.end());
    for (const std::string& ns : namespaces) w.L("}  // namespace ", ns);
    w.L("");
    w.L("#endif  // ", guard);
  }

  // --- source ---

  std::string ToJsonExpr(Kind kind, const std::string& e) const {
    switch (kind) {
      case Kind::kString:
      case Kind::kBool:
      case Kind::kDouble:
        return absl::StrCat("::Json::Value(", e, ")");
      case Kind::kInt32:
        return absl::StrCat("::Json::Value(static_cast<::Json::Int>(", e, "))");
      case Kind::kInt64:
        return absl::StrCat("::Json::Value(static_cast<::Json::Int64>(", e,
                            "))");
      case Kind::kUInt32:
        return absl::StrCat("::Json::Value(static_cast<::Json::UInt>(", e,
                            "))");
      case Kind::kUInt64:
        return absl::StrCat("::Json::Value(static_cast<::Json::UInt64>(", e,
                            "))");
      case Kind::kFloat:
        return absl::StrCat("::Json::Value(static_cast<double>(", e, "))");
      case Kind::kEnum:
        return absl::StrCat("::Json::Value(ToName(", e, "))");
      case Kind::kMessage:
        return absl::StrCat("(", e, ").ToJson()");
      case Kind::kStruct:
      case Kind::kValue:
        return e;
      case Kind::kDuration:
        return absl::StrCat("::xdsfed::json::DurationToJson(", e, ")");
    }
    return e;
  }

  // "is the plain member at its zero value" -> omitted from ToJson, so that
  // the round trip holds for fields that were absent.
  std::string NonZeroCondition(const FieldInfo& fi) const {
    const std::string m = absl::StrCat("this->", fi.member);
    switch (fi.kind) {
      case Kind::kString:
        return absl::StrCat("!", m, ".empty()");
      case Kind::kBool:
        return m;
      case Kind::kEnum:
        return absl::StrCat("static_cast<int>(", m, ") != 0");
      case Kind::kValue:
        return absl::StrCat("!", m, ".isNull()");
      case Kind::kDuration:
        return absl::StrCat(m, " != ::absl::ZeroDuration()");
      default:
        return absl::StrCat(m, " != 0");
    }
  }

  void EmitToJsonField(Writer* w, const FieldInfo& fi) const {
    const std::string m = absl::StrCat("this->", fi.member);
    const std::string key = CQuote(fi.json_key);
    switch (fi.shape) {
      case Shape::kPlain:
        if (fi.rules.has_default_value() || fi.rules.required() ||
            fi.rules.always_emit()) {
          w->L("json[", key, "] = ", ToJsonExpr(fi.kind, m), ";");
        } else {
          w->L("if (", NonZeroCondition(fi), ") {");
          w->In();
          w->L("json[", key, "] = ", ToJsonExpr(fi.kind, m), ";");
          w->Out();
          w->L("}");
        }
        return;
      case Shape::kOptional:
      case Shape::kBoxed:
        w->L("if (", m, ".has_value()) {");
        w->In();
        w->L("json[", key, "] = ", ToJsonExpr(fi.kind, "*" + m), ";");
        w->Out();
        w->L("}");
        return;
      case Shape::kRepeated:
      case Shape::kMap: {
        const bool is_map = fi.shape == Shape::kMap;
        std::string container = m;
        if (fi.presence) {
          w->L("if (", m, ".has_value()) {");
          container = absl::StrCat("*", m);
        } else if (fi.rules.required() || fi.rules.always_emit()) {
          w->L("{");
        } else {
          w->L("if (!", m, ".empty()) {");
        }
        w->In();
        w->L("::Json::Value& out = json[", key, "] = ::Json::Value(",
             is_map ? "::Json::objectValue" : "::Json::arrayValue", ");");
        if (is_map) {
          w->L("for (const auto& entry : ", container, ") {");
          w->In();
          w->L("out[entry.first] = ", ToJsonExpr(fi.kind, "entry.second"), ";");
        } else {
          w->L("for (const auto& item : ", container, ") {");
          w->In();
          w->L("out.append(", ToJsonExpr(fi.kind, "item"), ");");
        }
        w->Out();
        w->L("}");
        w->Out();
        w->L("}");
        return;
      }
    }
  }

  std::string BoundLiteral(Kind kind, double bound) const {
    switch (kind) {
      case Kind::kDuration:
        return DurationLiteral(absl::Seconds(bound));
      case Kind::kDouble:
      case Kind::kFloat:
        return DoubleLiteral(bound, false);
      case Kind::kUInt32:
      case Kind::kUInt64:
        return absl::StrCat(static_cast<uint64_t>(bound), "u");
      default:
        return IntLiteral(static_cast<int64_t>(bound));
    }
  }

  // "&x" for an lvalue expression; "p" for "*p".
  static std::string AddressOf(const std::string& lvalue) {
    if (absl::StartsWith(lvalue, "*")) return lvalue.substr(1);
    return absl::StrCat("&", lvalue);
  }
  // "x." or "p->" to call a member function.
  static std::string Member(const std::string& lvalue) {
    if (absl::StartsWith(lvalue, "*")) return lvalue.substr(1) + "->";
    return lvalue + ".";
  }

  // Statements loading JSON `src` into the element lvalue `dst`, with the
  // element's own checks. `in_container`: a list or map element.
  void EmitLoadElement(Writer* w, const FieldInfo& fi, const std::string& src,
                       const std::string& dst, bool in_container) {
    const options::FieldRules& r = fi.rules;
    std::vector<std::string> checks;
    std::string loader;
    switch (fi.kind) {
      case Kind::kString:
        loader = "LoadString";
        if (r.non_empty() && !in_container) {
          checks.push_back(absl::StrCat("::xdsfed::json::CheckNonEmpty(", dst,
                                        ", errors);"));
        }
        break;
      case Kind::kBool:
        loader = "LoadBool";
        break;
      case Kind::kInt32:
      case Kind::kInt64:
      case Kind::kUInt32:
      case Kind::kUInt64:
      case Kind::kDouble:
      case Kind::kFloat: {
        static const auto* const kLoaders = new std::map<Kind, std::string>{
            {Kind::kInt32, "LoadInt32"},   {Kind::kInt64, "LoadInt64"},
            {Kind::kUInt32, "LoadUInt32"}, {Kind::kUInt64, "LoadUInt64"},
            {Kind::kDouble, "LoadDouble"}, {Kind::kFloat, "LoadFloat"}};
        loader = kLoaders->at(fi.kind);
        const char* suffix =
            (fi.kind == Kind::kDouble || fi.kind == Kind::kFloat)    ? "Double"
            : (fi.kind == Kind::kUInt32 || fi.kind == Kind::kUInt64) ? "UInt"
                                                                     : "Int";
        if (r.has_min()) {
          checks.push_back(
              absl::StrCat("::xdsfed::json::CheckMin", suffix, "(", dst, ", ",
                           BoundLiteral(fi.kind, r.min()), ", errors);"));
        }
        if (r.has_max()) {
          checks.push_back(
              absl::StrCat("::xdsfed::json::CheckMax", suffix, "(", dst, ", ",
                           BoundLiteral(fi.kind, r.max()), ", errors);"));
        }
        break;
      }
      case Kind::kEnum: {
        std::vector<std::string> names;
        const EnumDescriptor* e = fi.element->enum_type();
        for (int i = 0; i < e->value_count(); ++i) {
          names.push_back(absl::StrCat("\"", e->value(i)->name(), "\""));
        }
        w->L("std::string name;");
        w->L("if (::xdsfed::json::LoadString(", src, ", &name, errors) &&");
        w->L("    !FromName(name, ", AddressOf(dst), ")) {");
        w->In();
        w->L(
            "errors->AddError(",
            CQuote(absl::StrCat("must be one of ", absl::StrJoin(names, ", "))),
            ");");
        w->Out();
        w->L("}");
        return;
      }
      case Kind::kDuration:
        loader = "LoadDuration";
        if (r.has_min()) {
          checks.push_back(
              absl::StrCat("::xdsfed::json::CheckMinDuration(", dst, ", ",
                           BoundLiteral(fi.kind, r.min()), ", errors);"));
        }
        if (r.has_max()) {
          checks.push_back(
              absl::StrCat("::xdsfed::json::CheckMaxDuration(", dst, ", ",
                           BoundLiteral(fi.kind, r.max()), ", errors);"));
        }
        break;
      case Kind::kMessage:
        w->L(Member(dst), "LoadFrom(", src, ", errors);");
        return;
      case Kind::kStruct:
        w->L("::xdsfed::json::LoadStruct(", src, ", ", AddressOf(dst),
             ", errors);");
        return;
      case Kind::kValue:
        w->L(dst, " = ", src, ";");
        return;
    }
    if (checks.empty()) {
      w->L("::xdsfed::json::", loader, "(", src, ", ", AddressOf(dst),
           ", errors);");
      return;
    }
    w->L("if (::xdsfed::json::", loader, "(", src, ", ", AddressOf(dst),
         ", errors)) {");
    w->In();
    for (const std::string& check : checks) w->L(check);
    w->Out();
    w->L("}");
  }

  void EmitLoadField(Writer* w, const FieldInfo& fi) {
    const std::string m = absl::StrCat("this->", fi.member);
    w->L("{");
    w->In();
    w->L("::xdsfed::ValidationErrors::ScopedField field(errors, ",
         CQuote(absl::StrCat(".", fi.json_key)), ");");
    w->L("const ::Json::Value* value = ::xdsfed::json::FindField(json, ",
         CQuote(fi.json_key), ");");
    if (fi.rules.required()) {
      w->L("if (value == nullptr) {");
      w->In();
      w->L("errors->AddError(\"field not present\");");
      w->Out();
      w->L("} else {");
    } else {
      w->L("if (value != nullptr) {");
    }
    w->In();
    switch (fi.shape) {
      case Shape::kPlain:
        EmitLoadElement(w, fi, "*value", m, false);
        break;
      case Shape::kOptional:
      case Shape::kBoxed:
        w->L("auto& item = ", m, ".emplace();");
        EmitLoadElement(w, fi, "*value", "item", false);
        break;
      case Shape::kRepeated:
      case Shape::kMap: {
        const bool is_map = fi.shape == Shape::kMap;
        w->L("auto& container = ", m, fi.presence ? ".emplace()" : "", ";");
        const bool uses_errors = fi.kind != Kind::kValue;
        w->L(fi.rules.non_empty() ? "if (" : "",
             "::xdsfed::json::", is_map ? "LoadMap" : "LoadArray",
             "(*value, &container, errors,");
        w->L("    [](const ::Json::Value& element, ", fi.element_type,
             "* out,");
        w->L("       ::xdsfed::ValidationErrors*", uses_errors ? " errors" : "",
             ") {");
        w->In();
        w->In();
        w->In();
        EmitLoadElement(w, fi, "element", "*out", true);
        w->L("return true;");
        w->Out();  // the lambda's closing brace lines up with "[]"
        w->L(fi.rules.non_empty() ? "})) {" : "});");
        w->Out();
        if (fi.rules.non_empty()) {
          w->L("::xdsfed::json::CheckNonEmptySize(container.size(), errors);");
        }
        w->Out();
        if (fi.rules.non_empty()) w->L("}");
        break;
      }
    }
    w->Out();
    w->L("}");
    w->Out();
    w->L("}");
  }

  std::string PresenceExpr(const FieldInfo& fi) const {
    const std::string m = absl::StrCat("this->", fi.member);
    switch (fi.shape) {
      case Shape::kOptional:
      case Shape::kBoxed:
        return absl::StrCat(m, ".has_value()");
      case Shape::kPlain:
        return NonZeroCondition(fi);
      default:
        return fi.presence ? absl::StrCat(m, ".has_value()")
                           : absl::StrCat("!", m, ".empty()");
    }
  }

  void EmitMessageSource(const Descriptor* d) {
    Writer& w = c_;
    const std::string name = Name(d);
    // operator==
    w.L("bool ", name, "::operator==(const ", name, "& other) const {");
    w.In();
    std::vector<std::string> members;
    for (int i = 0; i < d->field_count(); ++i) {
      members.push_back(fields_[d->field(i)].member);
    }
    if (SingleKey(d)) members.push_back("unknown_fields");
    if (members.empty()) {
      w.L("(void)other;");
      w.L("return true;");
    } else {
      std::vector<std::string> terms;
      for (const std::string& m : members) {
        terms.push_back(absl::StrCat("this->", m, " == other.", m));
      }
      w.L("return ", absl::StrJoin(terms, " &&\n         "), ";");
    }
    w.Out();
    w.L("}");
    w.L("");
    // ToJson
    w.L("::Json::Value ", name, "::ToJson() const {");
    w.In();
    w.L("::Json::Value json(::Json::objectValue);");
    for (int i = 0; i < d->field_count(); ++i) {
      EmitToJsonField(&w, fields_[d->field(i)]);
    }
    if (SingleKey(d)) {
      w.L("for (const auto& entry : this->unknown_fields) {");
      w.In();
      w.L("json[entry.first] = entry.second;");
      w.Out();
      w.L("}");
    }
    w.L("return json;");
    w.Out();
    w.L("}");
    w.L("");
    // LoadFrom
    w.L("void ", name, "::LoadFrom(const ::Json::Value& json,");
    w.L("    ::xdsfed::ValidationErrors* errors) {");
    w.In();
    w.L("*this = ", name, "();");
    w.L("if (!::xdsfed::json::CheckObject(json, errors)) return;");
    if (SingleKey(d)) {
      std::vector<std::string> keys;
      for (int i = 0; i < d->field_count(); ++i) {
        keys.push_back(CQuote(fields_[d->field(i)].json_key));
      }
      w.L("::xdsfed::json::CheckSingleKey(json, errors);");
      w.L("::xdsfed::json::CollectUnknownFields(json, {",
          absl::StrJoin(keys, ", "), "}, &this->unknown_fields);");
    }
    for (int i = 0; i < d->field_count(); ++i) {
      EmitLoadField(&w, fields_[d->field(i)]);
    }
    for (int i = 0; i < d->oneof_decl_count(); ++i) {
      const OneofDescriptor* o = d->oneof_decl(i);
      if (o->is_synthetic()) continue;  // proto3 `optional`
      std::vector<std::string> members;
      for (int j = 0; j < o->field_count(); ++j) {
        const FieldInfo& fi = fields_[o->field(j)];
        members.push_back(absl::StrCat("{", CQuote(fi.json_key), ", ",
                                       PresenceExpr(fi), "}"));
      }
      const bool required =
          o->options().GetExtension(options::oneof).required();
      w.L("// oneof ", o->name());
      w.L("::xdsfed::json::CheckOneof({", absl::StrJoin(members, ", "), "}, ",
          required ? "true" : "false", ", errors);");
    }
    w.Out();
    w.L("}");
    w.L("");
    // Parse
    w.L("absl::StatusOr<", name, "> ", name,
        "::Parse(const ::Json::Value& json,");
    w.L("    absl::string_view error_prefix) {");
    w.In();
    w.L("::xdsfed::ValidationErrors errors;");
    w.L(name, " result;");
    w.L("result.LoadFrom(json, &errors);");
    w.L("if (!errors.ok()) return errors.status(error_prefix);");
    w.L("return result;");
    w.Out();
    w.L("}");
    w.L("");
  }

  void EmitEnumSource(const EnumDescriptor* e) {
    Writer& w = c_;
    const std::string name = Name(e);
    w.L("const char* ToName(", name, " value) {");
    w.In();
    w.L("switch (value) {");
    w.In();
    std::set<int> seen;
    for (int i = 0; i < e->value_count(); ++i) {
      if (!seen.insert(e->value(i)->number()).second) continue;
      w.L("case ", name, "::", e->value(i)->name(), ":");
      w.In();
      w.L("return ", CQuote(e->value(i)->name()), ";");
      w.Out();
    }
    w.Out();
    w.L("}");
    w.L("return \"\";");
    w.Out();
    w.L("}");
    w.L("");
    w.L("bool FromName(absl::string_view name, ", name, "* value) {");
    w.In();
    for (int i = 0; i < e->value_count(); ++i) {
      w.L("if (name == ", CQuote(e->value(i)->name()), ") {");
      w.In();
      w.L("*value = ", name, "::", e->value(i)->name(), ";");
      w.L("return true;");
      w.Out();
      w.L("}");
    }
    w.L("return false;");
    w.Out();
    w.L("}");
    w.L("");
  }

  void GenerateSource() {
    Writer& w = c_;
    w.L("// Generated by protoc-gen-xdsfed from ", file_->name(),
        ". DO NOT EDIT.");
    w.L("#include \"", StripProto(file_->name()), ".xds.h\"");
    w.L("");
    w.L("#include <utility>");
    w.L("");
    w.L("#include \"absl/status/status.h\"");
    w.L("#include \"lib/json/json_fields.h\"");
    w.L("");
    for (const std::string& ns : Namespaces()) w.L("namespace ", ns, " {");
    w.L("");
    for (const EnumDescriptor* e : enums_) EmitEnumSource(e);
    for (const Descriptor* d : messages_) EmitMessageSource(d);
    std::vector<std::string> namespaces = Namespaces();
    std::reverse(namespaces.begin(), namespaces.end());
    for (const std::string& ns : namespaces) w.L("}  // namespace ", ns);
  }

  const FileDescriptor* file_;
  std::string error_;
  Writer h_, c_;
  std::set<const Descriptor*> open_, complete_;
  std::vector<const Descriptor*> messages_;  // in emission order
  std::vector<const EnumDescriptor*> enums_;
  std::map<const FieldDescriptor*, FieldInfo> fields_;
  std::set<std::vector<int>> json_name_paths_;  // fields with json_name set
};

bool WriteFile(pb::compiler::GeneratorContext* context, const std::string& name,
               const std::string& content) {
  std::unique_ptr<pb::io::ZeroCopyOutputStream> out(context->Open(name));
  pb::io::Printer printer(out.get(), '$');
  printer.PrintRaw(content);
  return !printer.failed();
}

}  // namespace

bool XdsfedGenerator::Generate(const FileDescriptor* file,
                               const std::string& /*parameter*/,
                               pb::compiler::GeneratorContext* context,
                               std::string* error) const {
  if (file->name() == kOptionsFile) return true;  // rules only, no structs
  FileGenerator generator(file);
  std::string header, source;
  if (!generator.Run(&header, &source, error)) return false;
  const std::string base = StripProto(file->name());
  if (!WriteFile(context, base + ".xds.h", header) ||
      !WriteFile(context, base + ".xds.cc", source)) {
    *error = "failed to write output";
    return false;
  }
  return true;
}

}  // namespace codegen
}  // namespace xdsfed
