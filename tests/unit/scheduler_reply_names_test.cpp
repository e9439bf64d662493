// tharsis-client refuses a scheduler reply naming a file or result it would make a path of
// outside its data dir (found by fuzz/scheduler_reply_fuzz.cpp; reproducers in
// fuzz/regressions/scheduler_reply/): before, "<name>../../.bashrc</name>" in a file_info
// was downloaded to data_dir/projects/../../.bashrc and <delete_file_info>../x removed it.
#include <gtest/gtest.h>

#include "lib/protocol/client_side.h"

namespace tharsis {
namespace {

std::string reply_with(const std::string& body) {
  return "<scheduler_reply>\n<scheduler_version>720</scheduler_version>\n<project_name>p</project_name>\n" +
         body + "</scheduler_reply>\n";
}

TEST(SchedulerReplyNames, PathNamesOutsideTheDataDirAreRefused) {
  const std::string cases[] = {
      "<file_info><name>../../.bashrc</name><url>http://x/a</url></file_info>",
      "<file_info><name>/etc/passwd</name></file_info>",
      "<delete_file_info>../state.xml</delete_file_info>",
      "<delete_file_info></delete_file_info>",
      "<result><name>../../r</name><wu_name>w</wu_name></result>",
      "<workunit><name>w</name><file_ref><file_name>a/../../b</file_name></file_ref></workunit>",
      "<app_version><app_name>a</app_name><file_ref><file_name>x</file_name><open_name>../../bin/sh</"
      "open_name>"
      "</file_ref></app_version>",
      "<result><name>r</name><file_ref><file_name>.hidden</file_name></file_ref></result>",
  };
  for (const auto& body : cases) {
    auto parsed = parse_scheduler_reply(reply_with(body));
    ASSERT_FALSE(parsed.ok()) << body;
    EXPECT_NE(parsed.error().find("unsafe name"), std::string::npos) << parsed.error();
  }
}

TEST(SchedulerReplyNames, OrdinaryNamesAndAbsentOpenNamesAreRead) {
  auto parsed = parse_scheduler_reply(
      reply_with("<file_info><name>wu_17.in</name><url>http://x/wu_17.in</url></file_info>\n"
                 "<workunit><name>wu_17</name><file_ref><file_name>wu_17.in</file_name><open_name>in</"
                 "open_name></file_ref>"
                 "</workunit>\n<result><name>wu_17_0</name><wu_name>wu_17</"
                 "wu_name><file_ref><file_name>wu_17_0_0</file_name>"
                 "</file_ref></result>\n<delete_file_info>old_sticky</delete_file_info>\n"));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->file_infos.at(0).name, "wu_17.in");
  EXPECT_EQ(parsed->workunits.at(0).file_refs.at(0).open_name, "in");
  EXPECT_EQ(parsed->results.at(0).file_refs.at(0).open_name, "");
  EXPECT_EQ(parsed->file_deletes.at(0), "old_sticky");
}

}  // namespace
}  // namespace tharsis
