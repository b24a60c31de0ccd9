#include <gtest/gtest.h>

#include "pqfast/simd.h"
#include "test_util.h"

namespace pqfast {

TEST(Simd, ScalarIsAlwaysAvailableAndFirst) {
  auto levels = available_simd_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), SimdLevel::kScalar);
  EXPECT_EQ(levels.back(), best_simd_level());
}

TEST(Simd, NamesRoundTrip) {
  for (int i = 0; i < kNumSimdLevels; ++i) {
    auto level = static_cast<SimdLevel>(i);
    auto parsed = parse_simd_level(simd_level_name(level));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, level);
  }
  auto bad = parse_simd_level("avx3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("avx3"), std::string::npos);
}

TEST(Simd, SetLevelRefusesUnsupported) {
#if defined(PQFAST_ARCH_X86)
  EXPECT_FALSE(set_simd_level(SimdLevel::kNeon).ok());
#else
  EXPECT_FALSE(set_simd_level(SimdLevel::kAvx2).ok());
#endif
  testing::for_each_simd_level([](SimdLevel level) { EXPECT_EQ(simd_level(), level); });
}

}  // namespace pqfast
