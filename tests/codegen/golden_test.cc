// The generated code for tests/codegen/testdata/test_schema.proto must match
// the checked-in golden files byte for byte, so that every change to the
// generator's output is reviewed as a diff.
//
// After an intended generator change, regenerate them with
//   cmake --build build --target codegen_update_golden
// and review `git diff tests/codegen/golden`. (The .golden suffix keeps them
// out of clang-format's reach; the generator's layout is its own.)
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(GoldenTest, GeneratedCodeMatchesGolden) {
  struct Case {
    std::string generated, golden;
  };
  const Case kCases[] = {
      {XDSFED_GENERATED_BASE ".xds.h", "test_schema.xds.h.golden"},
      {XDSFED_GENERATED_BASE ".xds.cc", "test_schema.xds.cc.golden"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.golden);
    const std::string generated = ReadFile(c.generated);
    const std::string golden =
        ReadFile(std::string(XDSFED_GOLDEN_DIR) + "/" + c.golden);
    EXPECT_FALSE(generated.empty());
    EXPECT_TRUE(generated == golden)
        << c.generated << " differs from tests/codegen/golden/" << c.golden
        << "; if the change is intended, run the codegen_update_golden "
           "target";
  }
}

}  // namespace
}  // namespace xdsfed
