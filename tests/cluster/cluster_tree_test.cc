// Tests for lib/cluster/cluster_tree.h: the A37 cluster tree (gRFC A37 §CDS
// LB Policy Support for Aggregate and Logical DNS Clusters) with the edge
// cases of gRPC C-core 1.51 cds.cc (GenerateDiscoveryMechanismForCluster:
// depth counted from 0 at the root and checked before the already-seen test,
// "has no leaf clusters" for loops of aggregates).
#include "lib/cluster/cluster_tree.h"

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::ClusterResource;
using State = ClusterTreeResult::State;

// The clusters a test knows about. A name that was never added is pending.
class Graph {
 public:
  // "A=agg(B,C) B=eds C=eds(svc) D=dns(h:80) E=dne": space-separated
  // entries, one per cluster; a cluster not listed is pending.
  explicit Graph(absl::string_view spec) {
    for (absl::string_view entry :
         absl::StrSplit(spec, ' ', absl::SkipEmpty())) {
      std::vector<absl::string_view> kv = absl::StrSplit(entry, '=');
      std::string name(kv[0]);
      absl::string_view kind = kv[1];
      absl::string_view arg;
      if (size_t open = kind.find('('); open != absl::string_view::npos) {
        arg = kind.substr(open + 1, kind.size() - open - 2);
        kind = kind.substr(0, open);
      }
      if (kind == "dne") {
        AddDoesNotExist(name);
      } else if (kind == "eds") {
        AddEds(name, arg);
      } else if (kind == "dns") {
        std::vector<absl::string_view> host_port = absl::StrSplit(arg, ':');
        uint32_t port = 0;
        for (char c : host_port[1]) port = port * 10 + (c - '0');
        AddDns(name, host_port[0], port);
      } else {
        AddAggregate(name, absl::StrSplit(arg, ','));
      }
    }
  }
  Graph() = default;

  ClusterResource& AddEds(const std::string& name,
                          absl::string_view service = "") {
    ClusterResource& c = Add(name);
    c.kind = ClusterResource::Eds{std::string(service)};
    return c;
  }
  ClusterResource& AddDns(const std::string& name, absl::string_view host,
                          uint32_t port) {
    ClusterResource& c = Add(name);
    c.kind = ClusterResource::LogicalDns{std::string(host), port};
    return c;
  }
  ClusterResource& AddAggregate(const std::string& name,
                                std::vector<std::string> children) {
    ClusterResource& c = Add(name);
    c.kind = ClusterResource::Aggregate{std::move(children)};
    return c;
  }
  void AddDoesNotExist(const std::string& name) { does_not_exist_[name]; }

  ClusterTreeResult Resolve(absl::string_view root) {
    lookups_ = 0;
    return ResolveClusterTree(root, [this](absl::string_view name) {
      ++lookups_;
      auto it = clusters_.find(std::string(name));
      if (it != clusters_.end())
        return ClusterLookupResult::Received(it->second);
      if (does_not_exist_.count(std::string(name)) != 0) {
        return ClusterLookupResult::DoesNotExist();
      }
      return ClusterLookupResult::Pending();
    });
  }
  int lookups() const { return lookups_; }

 private:
  ClusterResource& Add(const std::string& name) {
    ClusterResource& c = clusters_[name];
    c.name = name;
    return c;
  }

  std::map<std::string, ClusterResource> clusters_;
  std::map<std::string, bool> does_not_exist_;
  int lookups_ = 0;
};

std::string Mechanisms(const ClusterTreeResult& result) {
  return absl::StrJoin(result.mechanisms, ", ",
                       [](std::string* out, const DiscoveryMechanism& m) {
                         out->append(m.ToString());
                       });
}

const char* StateName(State state) {
  switch (state) {
    case State::kPending:
      return "pending";
    case State::kError:
      return "error";
    case State::kOk:
      return "ok";
  }
  return "?";
}

struct Case {
  const char* graph;
  const char* root;
  State state;
  // kOk: the mechanisms; kError: the error's full text (code + message).
  const char* want;
  const char* clusters;          // ResolveClusterTree's watch set, joined
  const char* pending_clusters;  // joined
};

void RunCases(const Case* begin, const Case* end) {
  for (const Case* c = begin; c != end; ++c) {
    SCOPED_TRACE(absl::StrCat(c->graph, " root ", c->root));
    Graph graph(c->graph);
    ClusterTreeResult result = graph.Resolve(c->root);
    EXPECT_STREQ(StateName(result.state), StateName(c->state));
    if (c->state == State::kOk) {
      EXPECT_EQ(Mechanisms(result), c->want);
    } else {
      EXPECT_TRUE(result.mechanisms.empty());
    }
    if (c->state == State::kError) {
      EXPECT_EQ(result.error.ToString(), c->want);
    } else {
      EXPECT_TRUE(result.error.ok()) << result.error;
    }
    EXPECT_EQ(absl::StrJoin(result.clusters, ","), c->clusters);
    EXPECT_EQ(absl::StrJoin(result.pending_clusters, ","), c->pending_clusters);
    // Each distinct cluster is looked up once.
    EXPECT_EQ(graph.lookups(), static_cast<int>(result.clusters.size()));
  }
}

// A37 §CDS LB Policy Support: the worked example, step by step as the
// watches come in, and the shapes around it.
TEST(ClusterTreeTest, A37Example) {
  const Case kCases[] = {
      // "CDS policy is created for cluster A and starts CDS watch for A."
      {"", "A", State::kPending, "", "A", "A"},
      // "A is an aggregate cluster pointing to clusters B and C."
      {"A=agg(B,C)", "A", State::kPending, "", "A,B,C", "B,C"},
      // "B is an EDS cluster", "C is an aggregate pointing to D and E".
      {"A=agg(B,C) B=eds", "A", State::kPending, "", "A,B,C", "C"},
      {"A=agg(B,C) B=eds C=agg(D,E)", "A", State::kPending, "", "A,B,C,D,E",
       "D,E"},
      {"A=agg(B,C) B=eds C=agg(D,E) D=eds", "A", State::kPending, "",
       "A,B,C,D,E", "E"},
      // "[EDS for B, EDS for D, logical DNS for E]".
      {"A=agg(B,C) B=eds C=agg(D,E) D=eds E=dns(e.example.com:8080)", "A",
       State::kOk,
       "EDS B, EDS D, LOGICAL_DNS E dns_hostname=e.example.com:8080",
       "A,B,C,D,E", ""},
      // Rooted at C, the same resources give C's subtree only.
      {"A=agg(B,C) B=eds C=agg(D,E) D=eds E=dns(e.example.com:8080)", "C",
       State::kOk, "EDS D, LOGICAL_DNS E dns_hostname=e.example.com:8080",
       "C,D,E", ""},
      // A single EDS or LOGICAL_DNS cluster is its own only mechanism (A37
      // §xds_cluster_resolver_experimental: "exactly one").
      {"A=eds", "A", State::kOk, "EDS A", "A", ""},
      {"A=eds(svc)", "A", State::kOk, "EDS A eds_service_name=svc", "A", ""},
      {"A=dns(localhost:53)", "A", State::kOk,
       "LOGICAL_DNS A dns_hostname=localhost:53", "A", ""},
      // EDS -> DNS fallback, the A37 motivation.
      {"A=agg(P,F) P=eds F=dns(fallback:443)", "A", State::kOk,
       "EDS P, LOGICAL_DNS F dns_hostname=fallback:443", "A,P,F", ""},
  };
  RunCases(std::begin(kCases), std::end(kCases));
}

// A37 §CDS LB Policy Support: "If an underlying cluster appears more than
// once in the list of clusters, only one discovery mechanism entry should be
// created for it, in the earliest position in the list in which it is seen."
TEST(ClusterTreeTest, DuplicatesKeptAtEarliestPosition) {
  const Case kCases[] = {
      {"A=agg(B,C,B) B=eds C=eds", "A", State::kOk, "EDS B, EDS C", "A,B,C",
       ""},
      {"A=agg(C,B,C,B) B=eds C=eds", "A", State::kOk, "EDS C, EDS B", "A,C,B",
       ""},
      // Flattened list [D, D, E] -> [D, E].
      {"A=agg(B,C) B=agg(D) C=agg(D,E) D=eds E=eds", "A", State::kOk,
       "EDS D, EDS E", "A,B,D,C,E", ""},
      // Flattened list [Y, D, D] -> [Y, D]: D's earliest position is inside X.
      {"A=agg(X,D) X=agg(Y,D) Y=eds D=eds", "A", State::kOk, "EDS Y, EDS D",
       "A,X,Y,D", ""},
      // A shared aggregate is expanded once.
      {"A=agg(B,C) B=agg(S) C=agg(S) S=agg(L1,L2) L1=eds L2=eds", "A",
       State::kOk, "EDS L1, EDS L2", "A,B,S,L1,L2,C", ""},
  };
  RunCases(std::begin(kCases), std::end(kCases));
}

// A37 §CDS LB Policy Support and C-core 1.51 cds.cc: a cluster already
// reached is skipped, so loops terminate; a graph whose every path ends in a
// loop has no leaf ("aggregate cluster graph has no leaf clusters").
TEST(ClusterTreeTest, LoopsTerminate) {
  const Case kCases[] = {
      {"A=agg(A,B) B=eds", "A", State::kOk, "EDS B", "A,B", ""},
      {"A=agg(B) B=agg(A,C) C=eds", "A", State::kOk, "EDS C", "A,B,C", ""},
      {"A=agg(B,C) B=agg(C,B) C=agg(B,D) D=eds", "A", State::kOk, "EDS D",
       "A,B,C,D", ""},
      {"A=agg(A)", "A", State::kError,
       "FAILED_PRECONDITION: aggregate cluster graph for \"A\" has no leaf "
       "clusters",
       "A", ""},
      {"A=agg(B) B=agg(A)", "A", State::kError,
       "FAILED_PRECONDITION: aggregate cluster graph for \"A\" has no leaf "
       "clusters",
       "A,B", ""},
      // Not known to be leafless yet: C has not arrived.
      {"A=agg(B) B=agg(A,C)", "A", State::kPending, "", "A,B,C", "C"},
  };
  RunCases(std::begin(kCases), std::end(kCases));
}

// A37 §CDS LB Policy Support: a watcher reporting does-not-exist puts the
// tree in TRANSIENT_FAILURE, naming the cluster; a child not received yet
// only makes the tree wait. Errors win over pending clusters; the first in
// depth-first order is reported; the watch set still covers every reachable
// cluster.
TEST(ClusterTreeTest, MissingVersusDoesNotExist) {
  const Case kCases[] = {
      {"A=agg(B,C) B=eds", "A", State::kPending, "", "A,B,C", "C"},
      {"A=agg(B,C) B=eds C=dne", "A", State::kError,
       "UNAVAILABLE: CDS resource \"C\" does not exist", "A,B,C", ""},
      {"A=agg(B,C) C=dne", "A", State::kError,
       "UNAVAILABLE: CDS resource \"C\" does not exist", "A,B,C", "B"},
      {"A=agg(B,C,D) B=dne C=eds D=dne", "A", State::kError,
       "UNAVAILABLE: CDS resource \"B\" does not exist", "A,B,C,D", ""},
      {"A=dne", "A", State::kError,
       "UNAVAILABLE: CDS resource \"A\" does not exist", "A", ""},
      // A does-not-exist cluster that is no longer reachable does not matter.
      {"A=agg(B) B=eds C=dne", "A", State::kOk, "EDS B", "A,B", ""},
  };
  RunCases(std::begin(kCases), std::end(kCases));
}

// Chain c0 -> c1 -> ... -> c(n-1), the last one `last` ("eds", "dne",
// "pending", or "loop": an aggregate pointing back to c0).
Graph Chain(int n, absl::string_view last) {
  Graph graph;
  for (int i = 0; i + 1 < n; ++i) {
    graph.AddAggregate(absl::StrCat("c", i), {absl::StrCat("c", i + 1)});
  }
  std::string tail = absl::StrCat("c", n - 1);
  if (last == "eds") graph.AddEds(tail);
  if (last == "dne") graph.AddDoesNotExist(tail);
  if (last == "loop") graph.AddAggregate(tail, {"c0"});
  return graph;
}

// A37 §CDS LB Policy Support: "The tree of aggregate clusters has a depth
// limit of 16." C-core 1.51 cds.cc: the root has depth 0 and reaching depth
// 16 fails, i.e. at most 16 clusters on a path; the check comes before the
// already-seen test, so even a back edge from depth 15 fails.
TEST(ClusterTreeTest, DepthLimit) {
  const std::string kTooDeep =
      "FAILED_PRECONDITION: aggregate cluster graph exceeds max depth of 16";
  struct DepthCase {
    int clusters_on_path;
    const char* last;
    State state;
    const char* want;  // kOk: mechanisms; kError: error
    size_t watched;
  };
  const DepthCase kCases[] = {
      {1, "eds", State::kOk, "EDS c0", 1},
      {15, "eds", State::kOk, "EDS c14", 15},
      {16, "eds", State::kOk, "EDS c15", 16},            // depth 16 accepted
      {17, "eds", State::kError, kTooDeep.c_str(), 16},  // 17 rejected
      {40, "eds", State::kError, kTooDeep.c_str(), 16},
      {16, "pending", State::kPending, "", 16},
      {17, "pending", State::kError, kTooDeep.c_str(), 16},
      {16, "dne", State::kError,
       "UNAVAILABLE: CDS resource \"c15\" does not exist", 16},
      {15, "loop", State::kError,
       "FAILED_PRECONDITION: aggregate cluster graph for \"c0\" has no leaf "
       "clusters",
       15},
      {16, "loop", State::kError, kTooDeep.c_str(), 16},
  };
  for (const DepthCase& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.clusters_on_path, " ", c.last));
    Graph graph = Chain(c.clusters_on_path, c.last);
    ClusterTreeResult result = graph.Resolve("c0");
    EXPECT_STREQ(StateName(result.state), StateName(c.state));
    if (c.state == State::kOk) {
      EXPECT_EQ(Mechanisms(result), c.want);
    }
    if (c.state == State::kError) {
      EXPECT_EQ(result.error.ToString(), c.want);
    }
    EXPECT_EQ(result.clusters.size(), c.watched);
  }
}

// C-core 1.51 cds.cc: depth is that of the depth-first path on which a
// cluster is first reached, not its shortest distance from the root.
TEST(ClusterTreeTest, DepthFollowsFirstVisit) {
  Graph graph;
  // R -> [p1, L]; p1 -> p2 -> ... -> p14 -> L; L -> [E].
  graph.AddAggregate("R", {"p1", "L"});
  for (int i = 1; i < 14; ++i) {
    graph.AddAggregate(absl::StrCat("p", i), {absl::StrCat("p", i + 1)});
  }
  graph.AddAggregate("p14", {"L"});
  graph.AddAggregate("L", {"E"});
  graph.AddEds("E");
  // L is first reached at depth 15 (through p1..p14), so E would be at 16.
  ClusterTreeResult result = graph.Resolve("R");
  EXPECT_EQ(result.error.ToString(),
            "FAILED_PRECONDITION: aggregate cluster graph exceeds max depth "
            "of 16");
  // Without p14 -> L, L is reached from R at depth 1 and E at 2.
  graph.AddEds("p14");
  result = graph.Resolve("R");
  EXPECT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(Mechanisms(result), "EDS p14, EDS E");
}

// The leaf's own Cluster fields go into its mechanism (C-core 1.51 cds.cc),
// whatever the aggregate above it says.
TEST(ClusterTreeTest, LeafFields) {
  Graph graph;
  ClusterResource& root = graph.AddAggregate("A", {"B", "C", "D"});
  root.max_concurrent_requests = 7;
  root.lrs_load_reporting_server_is_self = true;
  ClusterResource& b = graph.AddEds("B",
                                    "xdstp://auth/envoy.config."
                                    "endpoint.v3.ClusterLoadAssignment/b");
  b.max_concurrent_requests = 10;
  b.lrs_load_reporting_server_is_self = true;
  graph.AddDns("C", "::1", 8080);
  graph.AddEds("D");
  ClusterTreeResult result = graph.Resolve("A");
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.mechanisms.size(), 3u);

  DiscoveryMechanism want_b;
  want_b.cluster = "B";
  want_b.type = DiscoveryMechanism::Type::kEds;
  want_b.eds_service_name =
      "xdstp://auth/envoy.config.endpoint.v3.ClusterLoadAssignment/b";
  want_b.max_concurrent_requests = 10;
  want_b.lrs_load_reporting_server_is_self = true;
  DiscoveryMechanism want_c;
  want_c.cluster = "C";
  want_c.type = DiscoveryMechanism::Type::kLogicalDns;
  want_c.dns_hostname = "[::1]:8080";
  DiscoveryMechanism want_d;
  want_d.cluster = "D";

  struct FieldCase {
    const DiscoveryMechanism& got;
    const DiscoveryMechanism& want;
    const char* text;
    const char* eds_resource;
  };
  const FieldCase kCases[] = {
      {result.mechanisms[0], want_b,
       "EDS B eds_service_name=xdstp://auth/"
       "envoy.config.endpoint.v3.ClusterLoadAssignment/b "
       "max_concurrent_requests=10 lrs=self",
       "xdstp://auth/envoy.config.endpoint.v3.ClusterLoadAssignment/b"},
      {result.mechanisms[1], want_c, "LOGICAL_DNS C dns_hostname=[::1]:8080",
       "C"},
      {result.mechanisms[2], want_d, "EDS D", "D"},
  };
  for (const FieldCase& c : kCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(c.got, c.want);
    EXPECT_EQ(c.got.ToString(), c.text);
    EXPECT_EQ(c.got.EdsResourceName(), c.eds_resource);
  }
}

// Issue 5 §Bad input: a 10,000-wide aggregate, each child also listed twice,
// finishes quickly with each child looked up once.
TEST(ClusterTreeTest, TenThousandWideAggregate) {
  constexpr int kWidth = 10000;
  Graph graph;
  std::vector<std::string> children;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kWidth; ++i) children.push_back(absl::StrCat("w", i));
  }
  graph.AddAggregate("root", children);
  for (int i = 0; i < kWidth; ++i) graph.AddEds(absl::StrCat("w", i));
  const auto start = std::chrono::steady_clock::now();
  ClusterTreeResult result = graph.Resolve("root");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.mechanisms.size(), static_cast<size_t>(kWidth));
  for (int i = 0; i < kWidth; ++i) {
    ASSERT_EQ(result.mechanisms[i].cluster, absl::StrCat("w", i));
  }
  EXPECT_EQ(result.clusters.size(), static_cast<size_t>(kWidth + 1));
  EXPECT_EQ(graph.lookups(), kWidth + 1);
  EXPECT_LT(seconds, 5.0);  // generous: sanitizers, shared machine
  RecordProperty("seconds", std::to_string(seconds));
}

// Diamond-shaped DAG: `layers` layers of `width` aggregates, each pointing to
// every cluster of the next layer, then `width` EDS leaves. Walking every
// path would take width^layers steps; the walk must visit each cluster once.
Graph Diamond(int layers, int width) {
  Graph graph;
  auto name = [](int layer, int i) { return absl::StrCat("d", layer, "_", i); };
  std::vector<std::string> first;
  for (int i = 0; i < width; ++i) first.push_back(name(1, i));
  graph.AddAggregate("root", first);
  for (int layer = 1; layer <= layers; ++layer) {
    std::vector<std::string> next;
    for (int i = 0; i < width; ++i) next.push_back(name(layer + 1, i));
    for (int i = 0; i < width; ++i) graph.AddAggregate(name(layer, i), next);
  }
  for (int i = 0; i < width; ++i) graph.AddEds(name(layers + 1, i));
  return graph;
}

// Issue 5 §Bad input and A37 depth limit: root + 14 layers + leaves = 16
// clusters on every path (accepted); one more layer = 17 (rejected).
TEST(ClusterTreeTest, DiamondDag) {
  struct DiamondCase {
    int layers;
    int width;
    State state;
    const char* want;
    int lookups;
  };
  const DiamondCase kCases[] = {
      {14, 2, State::kOk, "EDS d15_0, EDS d15_1", 1 + 15 * 2},
      {15, 2, State::kError,
       "FAILED_PRECONDITION: aggregate cluster graph exceeds max depth of 16",
       1 + 15 * 2},
      {14, 8, State::kOk,
       "EDS d15_0, EDS d15_1, EDS d15_2, EDS d15_3, EDS d15_4, EDS d15_5, "
       "EDS d15_6, EDS d15_7",
       1 + 15 * 8},
  };
  for (const DiamondCase& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.layers, "x", c.width));
    Graph graph = Diamond(c.layers, c.width);
    const auto start = std::chrono::steady_clock::now();
    ClusterTreeResult result = graph.Resolve("root");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    EXPECT_STREQ(StateName(result.state), StateName(c.state));
    if (c.state == State::kOk) {
      EXPECT_EQ(Mechanisms(result), c.want);
    }
    if (c.state == State::kError) {
      EXPECT_EQ(result.error.ToString(), c.want);
    }
    EXPECT_EQ(graph.lookups(), c.lookups);
    EXPECT_LT(seconds, 1.0);
  }
}

}  // namespace
}  // namespace cluster
}  // namespace xdsfed
