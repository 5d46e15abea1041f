// Quality of the name hash (lib/name/internal/name_hash.h), which the
// resource cache uses as is: absl's flat_hash_set takes the low 7 bits as a
// slot's control byte and the bits above as the probe position. Checked on
// name sets like a cache's (many names sharing long prefixes) and on
// single-byte and block-order differences. The seed changes per process, so
// the bounds are wide (six standard deviations).
#include "lib/name/internal/name_hash.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace {

// Chi-square of the hashes' bits [shift, shift + log2(buckets)) against a
// uniform distribution; fails above mean + 6 standard deviations.
void ExpectUniform(const std::vector<uint64_t>& hashes, int shift,
                   size_t buckets) {
  std::vector<double> count(buckets, 0);
  for (uint64_t h : hashes) count[(h >> shift) & (buckets - 1)] += 1;
  const double expected = static_cast<double>(hashes.size()) / buckets;
  double chi2 = 0;
  for (double c : count) chi2 += (c - expected) * (c - expected) / expected;
  const double df = static_cast<double>(buckets - 1);
  EXPECT_LT(chi2, df + 6 * std::sqrt(2 * df))
      << "bits from " << shift << ", " << buckets << " buckets";
}

void ExpectNoCollision(std::vector<uint64_t> hashes) {
  std::sort(hashes.begin(), hashes.end());
  EXPECT_EQ(std::adjacent_find(hashes.begin(), hashes.end()), hashes.end());
}

void ExpectGoodHashes(const std::vector<uint64_t>& hashes) {
  ExpectNoCollision(hashes);
  ExpectUniform(hashes, 0, 128);  // control bytes
  for (int shift : {7, 17, 40, 52}) ExpectUniform(hashes, shift, 4096);
}

constexpr absl::string_view kAuthorities[] = {
    "xds.authority-a.example.com", "traffic-director-global.xds.googleapis.com",
    "xds.authority-c.example.com", ""};
constexpr absl::string_view kTypes[] = {
    "envoy.config.listener.v3.Listener",
    "envoy.config.route.v3.RouteConfiguration",
    "envoy.config.cluster.v3.Cluster",
    "envoy.config.endpoint.v3.ClusterLoadAssignment"};

// A47 §Resource Cache: a cache's names, through the normalizer (new-style,
// with and without params) and as old-style names.
TEST(NameHashTest, CacheLikeNames) {
  NameNormalizer normalizer;
  std::vector<uint64_t> with_params, without_params, old_style;
  for (size_t i = 0; i < 100000; ++i) {
    const std::string id =
        absl::StrCat("projects/1234/svc-", i % 97, "/name-", i / 16);
    const std::string base = absl::StrCat("xdstp://", kAuthorities[i % 4], "/",
                                          kTypes[(i / 4) % 4], "/", id);
    auto a = normalizer.Normalize(
        absl::StrCat(base, "?zone=us-east", i % 7, "-b&project_id=", i % 13),
        true);
    ASSERT_TRUE(a.ok());
    with_params.push_back(a->hash);
    auto b = normalizer.Normalize(base, true);
    ASSERT_TRUE(b.ok());
    without_params.push_back(b->hash);
    old_style.push_back(normalizer.Normalize(id, true)->hash);
  }
  ExpectGoodHashes(with_params);
  ExpectGoodHashes(without_params);
  ExpectGoodHashes(old_style);
}

// Names that differ in one byte anywhere, or in one param value only.
TEST(NameHashTest, SingleByteDifferences) {
  const std::string base = absl::StrCat(
      "xdstp://", kAuthorities[1], "/", kTypes[2],
      "/projects/123456789/networks/default/backend_services/some-service");
  std::vector<uint64_t> hashes;
  for (size_t pos = 8; pos < base.size(); ++pos) {
    for (char c : absl::string_view("0123456789abcdefghijklmnopqrstuvwxyz")) {
      std::string name = base;
      if (name[pos] == c || name[pos] == '/') continue;
      name[pos] = c;
      hashes.push_back(name_internal::HashNewStyle(name.data(), name.size(),
                                                   name.size(), 0));
    }
  }
  ExpectNoCollision(hashes);
  ExpectUniform(hashes, 0, 128);
  ExpectUniform(hashes, 7, 256);
  std::vector<uint64_t> values;
  for (int v = 0; v < 20000; ++v) {
    const std::string param = absl::StrCat("project_id=", v);
    values.push_back(name_internal::HashNewStyle(
        base.data(), base.size(), base.size() + 1 + param.size(),
        name_internal::ParamHash(param.data(), param.size())));
  }
  ExpectNoCollision(values);
  ExpectUniform(values, 0, 128);
  ExpectUniform(values, 7, 1024);
}

// Position matters: the same 16-byte blocks in another order, and the same
// bytes split differently between path and params, hash differently.
TEST(NameHashTest, OrderAndBoundaries) {
  const std::string blocks[] = {"xdstp://aaaa.com/", "tttttttttttttttt",
                                "0123456789abcdef", "fedcba9876543210",
                                "0123456789abcdef"};
  const std::string a = blocks[0] + blocks[1] + blocks[2] + blocks[3];
  const std::string b = blocks[0] + blocks[1] + blocks[3] + blocks[2];
  EXPECT_NE(name_internal::HashBytes(a, false),
            name_internal::HashBytes(b, false));
  EXPECT_NE(name_internal::HashBytes(a, false),
            name_internal::HashBytes(a, true));
  NameNormalizer n;
  const size_t split[] = {
      n.Normalize("xdstp://a.com/t/xa?b=1&c=2", true)->hash,
      n.Normalize("xdstp://a.com/t/x?ab=1&c=2", true)->hash,
      n.Normalize("xdstp://a.com/t/x?ab=1c=2", true)->hash,
      n.Normalize("xdstp://a.com/t/xab=1&c=2", true)->hash,
  };
  ExpectNoCollision(std::vector<uint64_t>(std::begin(split), std::end(split)));
  // A47 §Resource Cache: params "sorted lexicographically", so their order
  // in a spelling is not part of the name, nor of its hash.
  EXPECT_EQ(n.Normalize("xdstp://a.com/t/x?b=1&a=2", true)->hash,
            n.Normalize("xdstp://a.com/t/x?a=2&b=1", true)->hash);
}

}  // namespace
}  // namespace xdsfed
