// Listener resource-name templates of gRFC A47
// (client_listener_resource_name_template,
// client_default_listener_resource_name_template,
// server_listener_resource_name_template).
//
//   ExpandPercentS("xdstp://a.com/envoy.config.listener.v3.Listener/%s", "svc")
//     == "xdstp://a.com/envoy.config.listener.v3.Listener/svc"
//   ExpandListenerTemplate("xdstp://a/t/%s", "a b")  == "xdstp://a/t/a%20b"
//   ExpandListenerTemplate("%s", "a b")              == "a b"
#ifndef XDSFED_LIB_NAME_NAME_TEMPLATE_H_
#define XDSFED_LIB_NAME_NAME_TEMPLATE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace xdsfed {

// Replaces every "%s" in tmpl by replacement, verbatim.
std::string ExpandPercentS(absl::string_view tmpl,
                           absl::string_view replacement);

// True if name starts with "xdstp:" (A47: the test for a new-style name).
bool IsXdstpName(absl::string_view name);

// A47 pseudocode: if tmpl is an xdstp: name, replacement is first
// percent-encoded with PercentEncodePath; then every "%s" is replaced.
std::string ExpandListenerTemplate(absl::string_view tmpl,
                                   absl::string_view replacement);

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_NAME_TEMPLATE_H_
