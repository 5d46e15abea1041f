#include "lib/channel/san_matcher.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/routing/route_table.h"

namespace xdsfed::channel {
namespace {

using resources::StringMatch;

constexpr size_t kMaxQuoted = 128;
constexpr size_t kMaxListed = 8;

std::string Quote(absl::string_view text) {
  const bool cut = text.size() > kMaxQuoted;
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, kMaxQuoted)),
                      cut ? "...\"" : "\"");
}

std::string WithDot(absl::string_view s) {
  std::string out = absl::AsciiStrToLower(s);
  if (!absl::EndsWith(out, ".")) out.push_back('.');
  return out;
}

bool Matches(const StringMatch& m, absl::string_view san, bool dns) {
  if (san.empty()) return false;  // A29: an empty SAN matches nothing
  if (dns && m.type == StringMatch::Type::kExact) {
    return DnsSanMatchesName(san, m.value);
  }
  if (m.type == StringMatch::Type::kSafeRegex && m.regex == nullptr) {
    return false;  // validation always compiles it; fail closed otherwise
  }
  return routing::StringMatches(m, m.regex.get(), san);
}

bool AnyMatches(const std::vector<StringMatch>& matchers,
                const std::vector<std::string>& sans, bool dns,
                bool canonical_ip) {
  for (const std::string& san : sans) {
    const std::string ip = canonical_ip ? CanonicalIp(san) : std::string();
    const absl::string_view value = canonical_ip ? ip : san;
    for (const StringMatch& m : matchers) {
      if (Matches(m, value, dns)) return true;
    }
  }
  return false;
}

}  // namespace

bool DnsSanMatchesName(absl::string_view san, absl::string_view name) {
  if (san.empty() || absl::StartsWith(san, ".")) return false;
  if (name.empty() || absl::StartsWith(name, ".")) return false;
  const std::string s = WithDot(san);
  const std::string n = WithDot(name);
  if (!absl::StrContains(s, '*')) return s == n;
  // A wildcard must be the whole left-most label, of a name with more than
  // one label, and appear nowhere else.
  if (!absl::StartsWith(s, "*.") || s == "*.") return false;
  const absl::string_view suffix = absl::string_view(s).substr(1);  // ".x.y."
  if (absl::StrContains(suffix, '*')) return false;
  if (n.size() <= suffix.size() || !absl::EndsWith(n, suffix)) return false;
  // The label the wildcard stands for: one label, not empty.
  const absl::string_view label =
      absl::string_view(n).substr(0, n.size() - suffix.size());
  return !label.empty() && !absl::StrContains(label, '.');
}

std::string CanonicalIp(absl::string_view ip) {
  const std::string text(ip);
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    if (inet_ntop(AF_INET, buf, out, sizeof(out)) != nullptr) return out;
  } else if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    if (inet_ntop(AF_INET6, buf, out, sizeof(out)) != nullptr) return out;
  }
  return text;
}

bool SansMatch(const std::vector<StringMatch>& matchers, const PeerSans& sans) {
  if (matchers.empty()) return true;
  return AnyMatches(matchers, sans.dns, /*dns=*/true, false) ||
         AnyMatches(matchers, sans.uri, false, false) ||
         AnyMatches(matchers, sans.email, false, false) ||
         AnyMatches(matchers, sans.ip, false, /*canonical_ip=*/true);
}

std::string DescribeSans(const PeerSans& sans) {
  std::vector<std::string> names;
  auto add = [&names](const char* kind, const std::vector<std::string>& list) {
    for (const std::string& s : list) {
      if (names.size() < kMaxListed)
        names.push_back(absl::StrCat(kind, Quote(s)));
    }
  };
  add("URI:", sans.uri);
  add("DNS:", sans.dns);
  add("email:", sans.email);
  add("IP:", sans.ip);
  if (names.empty()) return "no SAN";
  return absl::StrJoin(names, ", ");
}

std::string DescribeSanMismatch(const std::vector<StringMatch>& matchers,
                                const PeerSans& sans) {
  std::vector<std::string> wanted;
  for (const StringMatch& m : matchers) {
    if (wanted.size() >= kMaxListed) break;
    wanted.push_back(absl::StrCat(resources::StringMatchTypeName(m.type),
                                  m.case_sensitive ? "" : "(ignore_case)", ":",
                                  Quote(m.value)));
  }
  return absl::StrCat("the server's certificate presents [", DescribeSans(sans),
                      "], none matches match_subject_alt_names [",
                      absl::StrJoin(wanted, ", "), "]");
}

}  // namespace xdsfed::channel
