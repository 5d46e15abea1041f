#include "lib/name/name_template.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "lib/name/percent_encoding.h"

namespace xdsfed {

std::string ExpandPercentS(absl::string_view tmpl,
                           absl::string_view replacement) {
  return absl::StrReplaceAll(tmpl, {{"%s", replacement}});
}

bool IsXdstpName(absl::string_view name) {
  return absl::StartsWith(name, "xdstp:");
}

std::string ExpandListenerTemplate(absl::string_view tmpl,
                                   absl::string_view replacement) {
  if (IsXdstpName(tmpl)) {
    return ExpandPercentS(tmpl, PercentEncodePath(replacement));
  }
  return ExpandPercentS(tmpl, replacement);
}

}  // namespace xdsfed
