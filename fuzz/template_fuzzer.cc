// Fuzzes A47 listener-name templates. Input: one selector byte, then the
// replacement (a service authority or listening address). Invariants
// (issue 3 §5): an xdstp: template expanded with the percent-encoded
// replacement always parses back, with the replacement decoded in its id;
// ExpandPercentS replaces every "%s" and nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "lib/base/check.h"
#include "lib/name/name_template.h"
#include "lib/name/resource_name.h"

namespace {

struct Template {
  const char* tmpl;
  const char* id_prefix;  // id = prefix + r [+ between + r]
  const char* between;    // non-null: "%s" appears twice
  const char* param;      // the one context param, "" for none
};

// The A47 templates (defaults and worked examples), plus a double "%s".
const Template kTemplates[] = {
    {"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s", "",
     nullptr, ""},
    {"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
     "client/%s?project_id=1234",
     "grpc/client/", nullptr, "1234"},
    {"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
     "server/%s?project_id=1234",
     "grpc/server/", nullptr, "1234"},
    {"xdstp:///envoy.config.listener.v3.Listener/%s/x/%s", "", "/x/", ""},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const absl::string_view r(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Template& t = kTemplates[data[0] % 4];

  const std::string name = xdsfed::ExpandListenerTemplate(t.tmpl, r);
  XDSFED_CHECK(xdsfed::IsXdstpName(name));
  auto parsed = xdsfed::ResourceName::Parse(
      name, /*federation=*/true, "envoy.config.listener.v3.Listener");
  if (name.size() > xdsfed::kMaxResourceNameLength) {
    XDSFED_CHECK(!parsed.ok());
    return 0;
  }
  XDSFED_CHECK(parsed.ok());
  XDSFED_CHECK(!parsed->old_style);
  std::string want_id = absl::StrCat(t.id_prefix, r);
  if (t.between != nullptr) absl::StrAppend(&want_id, t.between, r);
  XDSFED_CHECK(parsed->id == want_id);
  if (*t.param != '\0') {
    XDSFED_CHECK(parsed->context_params.size() == 1 &&
                 parsed->context_params[0].first == "project_id" &&
                 parsed->context_params[0].second == t.param);
  } else {
    XDSFED_CHECK(parsed->context_params.empty());
  }
  // Already canonical: the encoding used is the canonical one.
  XDSFED_CHECK(parsed->ToString() == name);

  // Old-style templates take the replacement verbatim.
  XDSFED_CHECK(xdsfed::ExpandListenerTemplate("%s", r) == r);

  // ExpandPercentS with the input as the template: every "%s" replaced.
  const std::string expanded = xdsfed::ExpandPercentS(r, "<>");
  XDSFED_CHECK(expanded == absl::StrJoin(absl::StrSplit(r, "%s"), "<>"));
  return 0;
}
