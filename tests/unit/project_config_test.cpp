// config.xml parsing: required fields, typed validation with one-line messages, defaults,
// daemons, and the render -> parse round trip make_project relies on.
#include "lib/config/project_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/project_config_fixture.h"

namespace tharsis::project_config_test {
namespace {

using test::config_with;  // a minimal valid config.xml; tests add or replace elements

TEST(ProjectConfig_Parse, MinimalConfigGetsDocumentedDefaults) {
  auto c = parse_project_config(config_with(""));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->name, "demo");
  EXPECT_EQ(c->long_name, "demo");
  EXPECT_EQ(c->uldl_dir_fanout, 1024);
  EXPECT_EQ(c->db.host, "localhost");
  EXPECT_EQ(c->db.port, 3306);
  EXPECT_EQ(c->db.user, "boincadm");
  EXPECT_EQ(c->download_dir, "/srv/demo/download");
  EXPECT_EQ(c->upload_dir, "/srv/demo/upload");
  EXPECT_EQ(c->key_dir, "/srv/demo/keys");
  EXPECT_EQ(c->log_dir, "/srv/demo/log");
  EXPECT_EQ(c->pid_dir, "/srv/demo/pid");
  EXPECT_EQ(c->tmp_dir, "/srv/demo/tmp");
  EXPECT_EQ(c->recluster_policy, ReclusterPolicy::Noop);
  EXPECT_EQ(c->initial_cluster_size, 1);
  EXPECT_TRUE(c->daemons.empty());
}

TEST(ProjectConfig_Parse, ReadsTypedKnobsAndDaemons) {
  auto c = parse_project_config(config_with(
      "<uldl_dir_fanout>256</uldl_dir_fanout>\n"
      "<db_socket>/tmp/db.sock</db_socket><db_passwd>s3cret</db_passwd>\n"
      "<daily_result_quota>7</daily_result_quota><request_delay>2.5</request_delay>\n"
      "<max_wus_to_send>3</max_wus_to_send><recluster_policy>dr</recluster_policy>\n"
      "<initial_cluster_size>4</initial_cluster_size>\n"
      "<max_upload_size>1000</max_upload_size><max_request_size>2000</max_request_size>\n"
      "<my_knob> 42 </my_knob>\n",
      "<daemons><daemon><cmd>transitioner --sleep 5</cmd><disabled>0</disabled><nice>10</nice></daemon>\n"
      "<daemon><cmd>file_deleter</cmd><disabled>1</disabled></daemon>"
      "<daemon><cmd>validator</cmd></daemon></daemons>"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->uldl_dir_fanout, 256);
  EXPECT_EQ(c->db.socket, "/tmp/db.sock");
  EXPECT_EQ(c->db.password, "s3cret");
  EXPECT_EQ(c->daily_result_quota, 7);
  EXPECT_DOUBLE_EQ(c->request_delay, 2.5);
  EXPECT_EQ(c->max_wus_to_send, 3);
  EXPECT_EQ(c->recluster_policy, ReclusterPolicy::DR);
  EXPECT_EQ(c->initial_cluster_size, 4);
  EXPECT_EQ(c->max_upload_size, 1000);
  EXPECT_EQ(c->max_request_size, 2000);
  EXPECT_EQ(c->other.at("my_knob"), "42");
  ASSERT_EQ(c->daemons.size(), 3u);
  EXPECT_EQ(c->daemons[0].cmd, "transitioner --sleep 5");
  EXPECT_FALSE(c->daemons[0].disabled);
  EXPECT_EQ(c->daemons[0].nice, 10);
  EXPECT_TRUE(c->daemons[1].disabled);
  EXPECT_EQ(c->daemons[1].nice, 0) << "no <nice>: the normal priority";
  EXPECT_FALSE(c->daemons[2].disabled);
}

TEST(ProjectConfig_Parse, DaemonNiceOutsideZeroToNineteenNamesTheEntryAndValue) {
  for (const std::string bad : {"-1", "20", "ten", "5x", ""}) {
    auto c = parse_project_config(
        config_with("", "<daemons><daemon><cmd>validator</cmd><nice>" + bad + "</nice></daemon></daemons>"));
    ASSERT_FALSE(c.ok()) << "'" << bad << "' accepted";
    EXPECT_NE(c.error().find("entry #1 <nice> expected 0 to 19, found '" + bad + "'"), std::string::npos)
        << c.error();
  }
}

TEST(ProjectConfig_Parse, NonIntegerFanoutNamesFieldAndValue) {
  auto c = parse_project_config(config_with("<uldl_dir_fanout>abc</uldl_dir_fanout>"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(), "config.xml: <uldl_dir_fanout> expected a positive integer, found 'abc'");
}

TEST(ProjectConfig_Parse, ZeroAndNegativeAndTrailingJunkRejected) {
  for (const char* bad : {"0", "-3", "12x", ""}) {
    auto c = parse_project_config(config_with(std::string("<max_wus_to_send>") + bad + "</max_wus_to_send>"));
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error(), std::string("config.xml: <max_wus_to_send> expected a positive "
                                     "integer, found '") +
                             bad + "'");
  }
}

TEST(ProjectConfig_Parse, MissingRequiredFieldsAreAllNamed) {
  auto c = parse_project_config(
      "<boinc><config><name>x</name><master_url>http://a/</master_url></config></boinc>");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(),
            "config.xml: missing required <upload_url>, <download_url>, <cgi_url>, "
            "<project_dir>, <db_name>, <db_user> in <config>");
}

TEST(ProjectConfig_Parse, MalformedXmlReportsOffsetAndLine) {
  std::string xml = "<boinc>\n<config>\n<name>x</nam>\n</config></boinc>";
  auto c = parse_project_config(xml, "/srv/demo/config.xml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().rfind("/srv/demo/config.xml: malformed XML at offset ", 0), 0u) << c.error();
  EXPECT_NE(c.error().find("(line 3)"), std::string::npos) << c.error();
}

TEST(ProjectConfig_Parse, WrongRootAndDuplicatesAndBadValuesRejected) {
  auto root = parse_project_config("<project><config/></project>");
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error(), "config.xml: expected root element <boinc>, found <project>");

  auto twice = parse_project_config(config_with("<name>again</name>"));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error(), "config.xml: <name> given twice");

  auto policy = parse_project_config(config_with("<recluster_policy>FAST</recluster_policy>"));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error(), "config.xml: <recluster_policy> expected one of NOOP, DC, SR, DR, found 'FAST'");

  auto port = parse_project_config(config_with("<db_port>70000</db_port>"));
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error(), "config.xml: <db_port> expected a TCP port 0..65535, found '70000'");

  auto relative = parse_project_config(config_with("<upload_dir>upload</upload_dir>"));
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(relative.error(), "config.xml: <upload_dir> expected an absolute path, found 'upload'");

  std::string ftp = config_with("");
  const std::string http_master = "http://127.0.0.1:8080/demo/<";
  ftp.replace(ftp.find(http_master), http_master.size() - 1, "ftp://x/");
  auto url = parse_project_config(ftp);
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error(), "config.xml: <master_url> expected an http:// or https:// URL, found 'ftp://x/'");

  auto daemon =
      parse_project_config(config_with("", "<daemons><daemon><disabled>0</disabled></daemon></daemons>"));
  ASSERT_FALSE(daemon.ok());
  EXPECT_EQ(daemon.error(), "config.xml: <daemons> entry #1: missing or empty <cmd>");
}

// Fuzz finding (fuzz/regressions/project_config/project-dir-line-breaks): a project_dir
// ending in line breaks before its '/' lost the '/' and kept the breaks, which read back
// trimmed, so the rendered config named other directories.
TEST(ProjectConfig_Parse, PathsWithControlCharactersOrBlanksBeforeATrailingSlash) {
  std::string breaks = config_with("");
  breaks.replace(breaks.find("/srv/demo<"), 9, "/srv/x\n\n`\n/");
  auto broken = parse_project_config(breaks);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error(),
            "config.xml: <project_dir> expected a path without control characters (line breaks, tabs)");
  auto tab = parse_project_config(config_with("<log_dir>/var/log/\tdemo</log_dir>"));
  ASSERT_FALSE(tab.ok());
  EXPECT_EQ(tab.error(),
            "config.xml: <log_dir> expected a path without control characters (line breaks, tabs)");

  std::string blank = config_with("");
  blank.replace(blank.find("/srv/demo<"), 9, "/srv/demo /");
  auto c = parse_project_config(blank);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->project_dir, "/srv/demo");
  EXPECT_EQ(c->upload_dir, "/srv/demo/upload");
  auto again = parse_project_config(render_project_config(*c));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(render_project_config(*again), render_project_config(*c));
}

TEST(ProjectConfig_Render, RoundTripReproducesEveryField) {
  ProjectConfig c;
  c.name = "rt";
  c.long_name = "Round & Trip <project>";
  c.master_url = "http://127.0.0.1:9/rt/";
  c.upload_url = "http://127.0.0.1:9/rt_cgi/file_upload_handler";
  c.download_url = "http://127.0.0.1:9/rt/download";
  c.cgi_url = "http://127.0.0.1:9/rt_cgi/";
  c.db = DbConfig{"db.local", 3307, "/run/x.sock", "u", "p w", "rtdb"};
  c.project_dir = "/p/rt";
  c.download_dir = "/d";
  c.upload_dir = "/u";
  c.key_dir = "/k";
  c.log_dir = "/l";
  c.pid_dir = "/pi";
  c.tmp_dir = "/t";
  c.uldl_dir_fanout = 17;
  c.max_upload_size = 123456789012;
  c.max_request_size = 99;
  c.daily_result_quota = 8;
  c.request_delay = 0.1;
  c.max_wus_to_send = 9;
  c.recluster_policy = ReclusterPolicy::SR;
  c.initial_cluster_size = 6;
  c.cluster_active_host_minutes = 3;
  c.cluster_window_jobs = 50;
  c.cluster_queue_jobs = 7;
  c.cluster_task_time_prior = 2.5;
  c.cluster_job_overhead_prior = 0.25;
  c.daemons = {{"transitioner --sleep 5", false}, {"feeder", true}};
  c.other["extra_knob"] = "yes";

  std::string text = render_project_config(c);
  auto back = parse_project_config(text);
  ASSERT_TRUE(back.ok()) << back.error() << "\n" << text;
  EXPECT_EQ(back->long_name, c.long_name);
  EXPECT_EQ(back->db.host, "db.local");
  EXPECT_EQ(back->db.port, 3307);
  EXPECT_EQ(back->db.socket, "/run/x.sock");
  EXPECT_EQ(back->db.password, "p w");
  EXPECT_EQ(back->db.name, "rtdb");
  EXPECT_EQ(back->tmp_dir, "/t");
  EXPECT_EQ(back->max_upload_size, 123456789012);
  EXPECT_EQ(back->request_delay, 0.1);
  EXPECT_EQ(back->recluster_policy, ReclusterPolicy::SR);
  EXPECT_EQ(back->cluster_active_host_minutes, 3);
  EXPECT_EQ(back->cluster_window_jobs, 50);
  EXPECT_EQ(back->cluster_queue_jobs, 7);
  EXPECT_EQ(back->cluster_task_time_prior, 2.5);
  EXPECT_EQ(back->cluster_job_overhead_prior, 0.25);
  EXPECT_EQ(back->other.at("extra_knob"), "yes");
  ASSERT_EQ(back->daemons.size(), 2u);
  EXPECT_TRUE(back->daemons[1].disabled);
  // Everything else: a second render is byte-identical.
  EXPECT_EQ(render_project_config(*back), text);
}

TEST(ProjectConfig_Load, ReadsFileAndNamesMissingFile) {
  auto dir = std::filesystem::temp_directory_path() / ("tharsis_cfg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "config.xml").string();
  std::ofstream(path) << config_with("<uldl_dir_fanout>x</uldl_dir_fanout>");
  auto bad = load_project_config(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), path + ": <uldl_dir_fanout> expected a positive integer, found 'x'");
  auto missing = load_project_config((dir / "nope.xml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("nope.xml"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tharsis::project_config_test
