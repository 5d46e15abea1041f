// Table tests of the loaders generated from testdata/test_schema.proto: one
// table per message, covering each rule of schema/xdsfed_options.proto, type
// errors, field paths, unknown keys, oneofs, recursion and the round trip
// Parse(x.ToJson()) == x.
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/json/json_fields.h"
#include "lib/json/json_reader.h"
#include "tests/codegen/testdata/test_schema.xds.h"

namespace xdsfed {
namespace test {
namespace {

struct Case {
  std::string in;
  std::string want_error;  // "" = must parse
};

// Parses every case; checks the full error, or the round trip on success.
template <typename T>
void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<Json::Value> json = ParseJsonText(c.in);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<T> parsed = T::Parse(*json, "p");
    if (!c.want_error.empty()) {
      ASSERT_FALSE(parsed.ok());
      EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(std::string(parsed.status().message()), c.want_error);
      continue;
    }
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    const Json::Value written = parsed->ToJson();
    absl::StatusOr<T> reparsed = T::Parse(written, "round trip");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_TRUE(*reparsed == *parsed) << JsonToString(written);
    EXPECT_FALSE(*reparsed != *parsed);
  }
}

template <typename T>
T MustParse(const std::string& text) {
  absl::StatusOr<Json::Value> json = ParseJsonText(text);
  EXPECT_TRUE(json.ok()) << json.status();
  absl::StatusOr<T> parsed = T::Parse(json.ok() ? *json : Json::Value(), "p");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : T();
}

TEST(GeneratedLoaderTest, Scalars) {
  RunCases<Scalars>({
      {R"({"req": "r"})", ""},
      {R"({"req": "r", "s": "x", "b": true, "i32": -5, "i64": "-9",
           "u32": 100, "u64": 18446744073709551615, "d": 0.5, "f": 1.5,
           "color": "RED", "opt_s": "", "opt_i": 0, "s32": -1,
           "fx64": 7})",
       ""},
      // Required and non_empty.
      {"{}", "p: [field:req error:field not present]"},
      {R"({"req": ""})", "p: [field:req error:must be non-empty]"},
      // Not an object at all.
      {"[]", "p: [field: error:is not an object]"},
      {"null", "p: [field: error:is not an object]"},
      // Every error is reported, sorted by path.
      {R"({"req": "r", "s": 1, "b": "x", "i32": 6, "u32": 101, "d": 1.5,
           "color": "BLUE", "opt_i": "x", "i64": 1.5, "u64": -1})",
       "p: [field:b error:is not a boolean; "
       "field:color error:must be one of \"COLOR_UNSPECIFIED\", \"RED\", "
       "\"GREEN\"; "
       "field:d error:must be <= 1; "
       "field:i32 error:must be <= 5; "
       "field:i64 error:is not an integer; "
       "field:opt_i error:is not an integer; "
       "field:s error:is not a string; "
       "field:u32 error:must be <= 100; "
       "field:u64 error:is out of range for uint64 (expected "
       "0..18446744073709551615)]"},
      {R"({"req": "r", "i32": -6, "d": -0.1})",
       "p: [field:d error:must be >= 0; field:i32 error:must be >= -5]"},
      {R"({"req": "r", "color": 1})", "p: [field:color error:is not a string]"},
      {R"({"req": 5, "opt_s": null})",
       "p: [field:opt_s error:is not a string; "
       "field:req error:is not a string]"},
      // json_name wins; the proto field name and unknown keys are ignored.
      {R"({"req": "r", "jsonNamed": "x", "json_named": 1, "zzz": {}})", ""},
  });
  const Scalars s = MustParse<Scalars>(
      R"({"req": "r", "jsonNamed": "x", "default": "k", "opt_i": 0})");
  EXPECT_EQ(s.json_named, "x");
  EXPECT_EQ(s.default_, "k");
  EXPECT_EQ(s.opt_i, 0);  // present, even though zero
  EXPECT_FALSE(s.opt_s.has_value());
  EXPECT_EQ(s.color, Color::COLOR_UNSPECIFIED);
  // Zero values of plain fields are omitted; optional ones are written.
  EXPECT_EQ(JsonToString(s.ToJson()),
            R"({"default":"k","jsonNamed":"x","opt_i":0,"req":"r"})");
}

TEST(GeneratedLoaderTest, Defaults) {
  RunCases<Defaults>({
      {"{}", ""},
      {R"({"u32": 0, "str": "", "flag": false, "ratio": 0, "color":
           "COLOR_UNSPECIFIED", "i64": 0, "f": 0})",
       ""},
      {R"({"u32": -1})",
       "p: [field:u32 error:is out of range for uint32 (expected "
       "0..4294967295)]"},
  });
  const Defaults d = MustParse<Defaults>("{}");
  EXPECT_EQ(d.u32, 1024u);
  EXPECT_EQ(d.str, "%s \"q\"");
  EXPECT_TRUE(d.flag);
  EXPECT_EQ(d.ratio, 0.5);
  EXPECT_EQ(d.color, Color::GREEN);
  EXPECT_EQ(d.i64, -7);
  EXPECT_EQ(d.f, 2.0f);
  EXPECT_TRUE(d == Defaults());  // member initializers are the defaults
  // Fields with a default are always written, so zero survives the trip.
  const Defaults zero = MustParse<Defaults>(R"({"u32": 0, "flag": false})");
  EXPECT_EQ(zero.u32, 0u);
  EXPECT_FALSE(zero.flag);
  EXPECT_EQ(JsonToString(zero.ToJson()),
            R"({"color":"GREEN","f":2.0,"flag":false,"i64":-7,"ratio":0.5,)"
            R"("str":"%s \"q\"","u32":0})");
}

// google.protobuf.Duration in its proto3 JSON form (lib/json/proto_duration.h).
TEST(GeneratedLoaderTest, Durations) {
  const std::string kNotDuration =
      "is not a duration (decimal seconds with an \"s\" suffix, e.g. "
      "\"600s\" or \"1.5s\")";
  RunCases<Durations>({
      {"{}", ""},
      {R"({"plain": "1.5s", "with_default": "0s", "bounded": "60s",
           "list": ["0.000000001s", "-2s", "315576000000s"]})",
       ""},
      {R"({"plain": "soon"})", "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": 5})", "p: [field:plain error:is not a string]"},
      {R"({"plain": "5"})", "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": "1.0000000001s"})",
       "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": " 1s"})", "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": ".5s"})", "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": "1.s"})", "p: [field:plain error:" + kNotDuration + "]"},
      {R"({"plain": "315576000001s"})",
       "p: [field:plain error:is out of range for a duration "
       "(+-315576000000s)]"},
      {R"({"bounded": "0.4s", "list": ["1s", "x"]})",
       "p: [field:bounded error:must be >= 0.500s; "
       "field:list[1] error:" +
           kNotDuration + "]"},
      {R"({"bounded": "61s"})", "p: [field:bounded error:must be <= 60s]"},
  });
  const Durations d = MustParse<Durations>(
      R"({"plain": "1.5s", "list": ["-0.25s", "0.000001s"]})");
  EXPECT_EQ(d.plain, absl::Milliseconds(1500));
  EXPECT_EQ(d.with_default, absl::Seconds(600));
  EXPECT_FALSE(d.bounded.has_value());
  EXPECT_EQ(d.list, (std::vector<absl::Duration>{absl::Milliseconds(-250),
                                                 absl::Microseconds(1)}));
  EXPECT_EQ(JsonToString(d.ToJson()),
            R"({"list":["-0.250s","0.000001s"],"plain":"1.500s",)"
            R"("with_default":"600s"})");
}

TEST(GeneratedLoaderTest, Containers) {
  RunCases<Containers>({
      {R"({"req_list": []})", ""},
      {R"({"req_list": ["a"], "names": ["x", ""], "numbers": [0, 5],
           "byName": {"k": {"req": "r"}}, "labels": {"a": "b"},
           "list": [{"req": "r"}], "colors": ["RED", "GREEN"],
           "tracked": [], "tracked_map": {"a": 1}, "config": {"x": [1]},
           "any": [1, {"a": null}], "values": [null, "s", 2.5],
           "value_map": {"n": null}, "structs": [{}, {"a": 1}]})",
       ""},
      {"{}", "p: [field:req_list error:field not present]"},
      {R"({"req_list": [], "names": []})",
       "p: [field:names error:must be non-empty]"},
      {R"({"req_list": [], "tracked_map": {}})",
       "p: [field:tracked_map error:must be non-empty]"},
      {R"({"req_list": [], "numbers": [1, -1, "x"]})",
       "p: [field:numbers[1] error:must be >= 0; "
       "field:numbers[2] error:is not an integer]"},
      // Map entries are reported under ["key"], with '"' escaped.
      {R"({"req_list": [], "byName": {"k\"ey": {"s": 1}}})",
       "p: [field:byName[\"k\\\"ey\"].req error:field not present; "
       "field:byName[\"k\\\"ey\"].s error:is not a string]"},
      {R"({"req_list": [], "labels": {"a": 1}, "colors": ["RED", "X"]})",
       "p: [field:colors[1] error:must be one of \"COLOR_UNSPECIFIED\", "
       "\"RED\", \"GREEN\"; field:labels[\"a\"] error:is not a string]"},
      {R"({"req_list": {}, "list": {}, "labels": [], "config": 1,
           "structs": [[]]})",
       "p: [field:config error:is not an object; "
       "field:labels error:is not an object; "
       "field:list error:is not an array; "
       "field:req_list error:is not an array; "
       "field:structs[0] error:is not an object]"},
  });
  // track_presence: absent and empty differ.
  const Containers absent = MustParse<Containers>(R"({"req_list": []})");
  EXPECT_FALSE(absent.tracked.has_value());
  EXPECT_FALSE(absent.tracked_map.has_value());
  EXPECT_TRUE(absent.any.isNull());
  const Containers empty =
      MustParse<Containers>(R"({"req_list": [], "tracked": []})");
  ASSERT_TRUE(empty.tracked.has_value());
  EXPECT_TRUE(empty.tracked->empty());
  EXPECT_TRUE(absent != empty);
  // always_emit: written even when empty (issue 14 §2, dropCategories).
  EXPECT_EQ(JsonToString(empty.ToJson()),
            R"({"emitted":[],"req_list":[],"tracked":[]})");
  EXPECT_EQ(MustParse<Containers>(JsonToString(empty.ToJson())), empty);
}

TEST(GeneratedLoaderTest, NestedMessages) {
  RunCases<Outer>({
      {R"({"inner": {"name": "a", "kind": "KIND_B"}, "inners": [],
           "inner_map": {"m": {"name": "b"}}})",
       ""},
      {R"({"inner": {"kind": "KIND_C"}, "inners": [{"name": "a"}, {}],
           "inner_map": {"m": {"name": 5}}})",
       "p: [field:inner.kind error:must be one of \"KIND_A\", \"KIND_B\"; "
       "field:inner.name error:field not present; "
       "field:inner_map[\"m\"].name error:is not a string; "
       "field:inners[1].name error:field not present]"},
      {R"({"inner": "x", "inners": [1]})",
       "p: [field:inner error:is not an object; "
       "field:inners[0] error:is not an object]"},
  });
  const Outer o = MustParse<Outer>(R"({"inner": {"name": "a", "kind":
      "KIND_B"}})");
  ASSERT_TRUE(o.inner.has_value());
  EXPECT_EQ(o.inner->kind, Outer::Inner::Kind::KIND_B);
  EXPECT_STREQ(ToName(o.inner->kind), "KIND_B");
}

TEST(GeneratedLoaderTest, Oneofs) {
  RunCases<Choice>({
      {R"({"yes": true})", ""},
      {R"({"no": false, "scalars": {"req": "r"}})", ""},
      {"{}", "p: [field: error:one of \"yes\", \"no\" must be set]"},
      {R"({"text": "a", "number": 1, "yes": true, "no": false})",
       "p: [field: errors:[only one of \"text\", \"number\" may be set; "
       "only one of \"yes\", \"no\" may be set]]"},
      // A member with an error still counts as set.
      {R"({"scalars": {}, "text": "t", "yes": true})",
       "p: [field: error:only one of \"text\", \"scalars\" may be set; "
       "field:scalars.req error:field not present]"},
  });
}

TEST(GeneratedLoaderTest, Recursion) {
  RunCases<Tree>({
      {R"({"label": "r", "children": [{"label": "c", "children": [{}]}],
           "mirror": {"label": "m", "mirror": {}}})",
       ""},
      {R"({"children": [{"children": [{"label": 1}]}], "mirror": {"mirror":
           {"children": 2}}})",
       "p: [field:children[0].children[0].label error:is not a string; "
       "field:mirror.mirror.children error:is not an array]"},
  });
  Tree t = MustParse<Tree>(R"({"mirror": {"mirror": {"label": "deep"}}})");
  ASSERT_TRUE(t.mirror.has_value() && t.mirror->mirror.has_value());
  EXPECT_EQ(t.mirror->mirror->label, "deep");
  // Boxed copies are deep.
  Tree copy = t;
  copy.mirror->mirror->label = "changed";
  EXPECT_EQ(t.mirror->mirror->label, "deep");
  EXPECT_TRUE(copy != t);
}

TEST(GeneratedLoaderTest, PolicyListCycleAndSingleKey) {
  RunCases<PolicyEntry>({
      {R"({"branch": {"children": [{"leaf_policy": {}}, {"unknown": {}}],
           "first_leaf": {}}})",
       ""},
      {R"({"branch": {"children": [{}, {"a": {}, "b": {}}]}})",
       "p: [field:branch.children[0] error:must have exactly one field, "
       "found 0; field:branch.children[1] error:must have exactly one "
       "field, found 2]"},
      {R"({"branch": {}})",
       "p: [field:branch.children error:field not present]"},
      {R"({"leaf_policy": []})",
       "p: [field:leaf_policy error:is not an object]"},
  });
  // An unknown policy loads with no member set, for the caller to skip.
  const PolicyEntry e = MustParse<PolicyEntry>(
      R"({"branch": {"children": [{"unknown": {}}, {"leaf_policy": {}}]}})");
  ASSERT_TRUE(e.branch.has_value());
  EXPECT_FALSE(e.branch->children[0].branch.has_value());
  EXPECT_FALSE(e.branch->children[0].leaf.has_value());
  // ... but keeps it, so the caller can name it.
  ASSERT_EQ(e.branch->children[0].unknown_fields.size(), 1u);
  EXPECT_EQ(e.branch->children[0].unknown_fields.begin()->first, "unknown");
  EXPECT_TRUE(e.branch->children[1].unknown_fields.empty());
  EXPECT_TRUE(e.branch->children[1].leaf.has_value());
}

TEST(GeneratedLoaderTest, ImportedMessages) {
  RunCases<Imported>({
      {R"({"server": {"server_uri": "a"}, "servers": [{"server_uri": "b"}]})",
       ""},
      {R"({"server": {}, "servers": [{"server_uri": ""}]})",
       "p: [field:server.server_uri error:field not present; "
       "field:servers[0].server_uri error:must be non-empty]"},
  });
  const Imported i = MustParse<Imported>(R"({"server": {"server_uri": "a"}})");
  const std::optional<schema::XdsServer>& server = i.server;
  ASSERT_TRUE(server.has_value());
  EXPECT_EQ(server->server_uri, "a");
}

TEST(GeneratedLoaderTest, ParseArray) {
  absl::StatusOr<Json::Value> json =
      ParseJsonText(R"([{"leaf_policy": {}}, 3, {"branch": {}}])");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json::ParseArray<PolicyEntry>(*json, "bad list").status().message(),
            "bad list: [field:[1] error:is not an object; "
            "field:[2].branch.children error:field not present]");
  EXPECT_EQ(
      json::ParseArray<PolicyEntry>(Json::Value(Json::objectValue), "bad list")
          .status()
          .message(),
      "bad list: [field: error:is not an array]");
  absl::StatusOr<std::vector<PolicyEntry>> ok = json::ParseArray<PolicyEntry>(
      *ParseJsonText(R"([{"x": {}}, {"leaf_policy": {}}])"), "bad list");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->size(), 2u);
}

}  // namespace
}  // namespace test
}  // namespace xdsfed
