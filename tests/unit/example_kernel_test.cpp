// The example app's kernel: input parsing and deterministic output.
#include "client/lib/example_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace tharsis {
namespace {

TEST(ExampleKernel, ParsesAllKeysAndDefaults) {
  auto job = parse_example_input("seed hello world\niterations 3\n");
  ASSERT_TRUE(job.ok()) << job.error();
  EXPECT_EQ(job->seed, "hello world");
  EXPECT_EQ(job->iterations, 3);
  EXPECT_EQ(job->terms, 1000);
}

TEST(ExampleKernel, RejectsBadInputNamingTheLine) {
  auto unknown = parse_example_input("seed x\ncolour blue\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_example_input("seed x\niterations -4\n").ok());
  EXPECT_FALSE(parse_example_input("iterations 4\n").ok());
}

TEST(ExampleKernel, SingleIterationIsTheSha256OfTheSeed) {
  // SHA-256("abc") is the FIPS 180-2 test vector.
  ExampleJob job{"abc", 1, 0};
  EXPECT_EQ(run_example_job(job).substr(0, 71),
            "sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ExampleKernel, SeriesApproachesPiAndOutputIsDeterministic) {
  ExampleJob job{"s", 2, 100000};
  std::string out = run_example_job(job);
  EXPECT_EQ(out, run_example_job(job));
  double pi = std::strtod(out.substr(out.find("pi ") + 3).c_str(), nullptr);
  EXPECT_NEAR(pi, M_PI, 1e-4);
  EXPECT_NE(out, run_example_job(ExampleJob{"t", 2, 100000}));
}

}  // namespace
}  // namespace tharsis
