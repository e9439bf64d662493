// Scheduler request parsing: a request in the 7.20 client's layout, round trips through
// our client-side renderer, escaping, and every kind of bad input giving a clear error.
#include "lib/protocol/scheduler_request.h"

#include <gtest/gtest.h>

#include "lib/protocol/client_side.h"

namespace tharsis {
namespace {

// Written after client/cs_scheduler.cpp make_scheduler_request and the write functions it
// calls: numbers as printf("%f"), names unescaped, stderr in CDATA after
// <core_client_version>, extras (prefs, coprocs, opaque) we must skip.
const char* kClientRequest = R"(<scheduler_request>
    <authenticator>0123456789abcdef0123456789abcdef</authenticator>
    <hostid>42</hostid>
    <rpc_seqno>17</rpc_seqno>
    <core_client_major_version>7</core_client_major_version>
    <core_client_minor_version>20</core_client_minor_version>
    <core_client_release>2</core_client_release>
    <resource_share_fraction>1.000000</resource_share_fraction>
    <rrs_fraction>1.000000</rrs_fraction>
    <prrs_fraction>1.000000</prrs_fraction>
    <duration_correction_factor>1.000000</duration_correction_factor>
    <allow_multiple_clients>0</allow_multiple_clients>
    <sandbox>1</sandbox>
    <dont_send_work>0</dont_send_work>
    <work_req_seconds>8640.000000</work_req_seconds>
    <cpu_req_secs>8640.000000</cpu_req_secs>
    <cpu_req_instances>0.500000</cpu_req_instances>
    <estimated_delay>120.500000</estimated_delay>
    <client_cap_plan_class>1</client_cap_plan_class>
    <platform_name>x86_64-pc-linux-gnu</platform_name>
    <alt_platform>
        <name>i686-pc-linux-gnu</name>
    </alt_platform>
<working_global_preferences>
<global_preferences>
   <run_on_batteries>0</run_on_batteries>
   <venue name="home"><cpu_usage_limit>50</cpu_usage_limit></venue>
</global_preferences>
</working_global_preferences>
<time_stats>
    <on_frac>0.990000</on_frac>
    <connected_frac>-1.000000</connected_frac>
    <cpu_and_network_available_frac>0.980000</cpu_and_network_available_frac>
    <active_frac>0.970000</active_frac>
    <gpu_active_frac>0.960000</gpu_active_frac>
    <client_start_time>1763870000.000000</client_start_time>
    <total_start_time>1700000000.000000</total_start_time>
    <now>1763880000.250000</now>
    <previous_uptime>3600.000000</previous_uptime>
</time_stats>
<net_stats>
    <bwup>10000.000000</bwup>
    <avg_up>5000.000000</avg_up>
    <avg_time_up>1.000000</avg_time_up>
    <bwdown>20000.000000</bwdown>
    <avg_down>7000.000000</avg_down>
    <avg_time_down>2.000000</avg_time_down>
</net_stats>
<host_info>
    <timezone>3600</timezone>
    <domain_name>volunteer-box</domain_name>
    <ip_addr>192.168.1.20</ip_addr>
    <host_cpid>fedcba9876543210fedcba9876543210</host_cpid>
    <p_ncpus>8</p_ncpus>
    <p_vendor>GenuineIntel</p_vendor>
    <p_model>Intel(R) Core(TM) i7 CPU &amp; friends [Family 6 Model 158]</p_model>
    <p_features>fpu vme de pse sse sse2</p_features>
    <p_fpops>4500000000.000000</p_fpops>
    <p_iops>12000000000.000000</p_iops>
    <p_membw>1000000000.000000</p_membw>
    <p_calculated>1763000000.000000</p_calculated>
    <p_vm_extensions_disabled>0</p_vm_extensions_disabled>
    <m_nbytes>16000000000.000000</m_nbytes>
    <m_cache>8388608.000000</m_cache>
    <m_swap>2000000000.000000</m_swap>
    <d_total>500000000000.000000</d_total>
    <d_free>250000000000.000000</d_free>
    <os_name>Linux Debian</os_name>
    <os_version>Debian GNU/Linux 12 (bookworm) [6.1.0-18-amd64|libc 2.36]</os_version>
    <n_usable_coprocs>0</n_usable_coprocs>
    <opencl_cpu_prop><platform_vendor>x</platform_vendor></opencl_cpu_prop>
</host_info>
    <disk_usage>
        <d_boinc_used_total>1000000.000000</d_boinc_used_total>
        <d_boinc_used_project>500000.000000</d_boinc_used_project>
        <d_project_share>100000000.000000</d_project_share>
    </disk_usage>
<result>
    <name>wu_17_0</name>
    <final_cpu_time>123.450000</final_cpu_time>
    <final_elapsed_time>130.000000</final_elapsed_time>
    <exit_status>0</exit_status>
    <state>5</state>
    <platform>x86_64-pc-linux-gnu</platform>
    <version_num>101</version_num>
    <final_peak_working_set_size>52428800</final_peak_working_set_size>
    <app_version_num>101</app_version_num>
<stderr_out>
<core_client_version>7.20.2</core_client_version>
<![CDATA[
starting <chunk> & computing
done
]]>
</stderr_out>
<file_info>
    <name>wu_17_0_0</name>
    <nbytes>4096.000000</nbytes>
    <max_nbytes>1000000.000000</max_nbytes>
    <md5_cksum>0cc175b9c0f1b6a831c399e269772661</md5_cksum>
</file_info>
</result>
<result>
    <name>wu_18_1</name>
    <final_cpu_time>3.000000</final_cpu_time>
    <final_elapsed_time>3.000000</final_elapsed_time>
    <exit_status>-177</exit_status>
    <state>3</state>
    <platform>x86_64-pc-linux-gnu</platform>
    <version_num>101</version_num>
    <app_version_num>101</app_version_num>
<stderr_out>
<core_client_version>7.20.2</core_client_version>
</stderr_out>
</result>
    <file_info>
        <name>big_input.dat</name>
        <nbytes>1048576.000000</nbytes>
        <status>1</status>
    </file_info>
<app_versions>
<app_version>
    <app_name>operand</app_name>
    <version_num>101</version_num>
    <platform>x86_64-pc-linux-gnu</platform>
    <avg_ncpus>1.000000</avg_ncpus>
    <file_ref><file_name>operand_1.01_x86_64</file_name><main_program/></file_ref>
</app_version>
</app_versions>
<other_results>
    <other_result>
        <name>wu_19_0</name>
        <app_version>0</app_version>
    </other_result>
</other_results>
<client_opaque>
<![CDATA[
anything <at> all
]]>
</client_opaque>
</scheduler_request>
)";

TEST(SchedulerRequest, ParsesRequestInStockClientLayout) {
  auto parsed = parse_scheduler_request(kClientRequest, ProtocolLimits{});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const SchedulerRequest& r = *parsed;
  EXPECT_EQ(r.authenticator, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(r.hostid, 42);
  EXPECT_EQ(r.rpc_seqno, 17);
  EXPECT_EQ(r.core_client.number(), 72002);
  EXPECT_EQ(r.platform_name, "x86_64-pc-linux-gnu");
  EXPECT_EQ(r.alt_platforms, std::vector<std::string>{"i686-pc-linux-gnu"});
  EXPECT_DOUBLE_EQ(r.work_req_seconds, 8640);
  EXPECT_DOUBLE_EQ(r.cpu_req_secs, 8640);
  EXPECT_DOUBLE_EQ(r.cpu_req_instances, 0.5);
  EXPECT_DOUBLE_EQ(r.estimated_delay, 120.5);
  EXPECT_EQ(r.host.p_ncpus, 8);
  EXPECT_EQ(r.host.p_model, "Intel(R) Core(TM) i7 CPU & friends [Family 6 Model 158]");
  EXPECT_DOUBLE_EQ(r.host.p_fpops, 4.5e9);
  EXPECT_DOUBLE_EQ(r.host.m_nbytes, 16e9);
  EXPECT_DOUBLE_EQ(r.host.d_free, 250e9);
  EXPECT_EQ(r.host.os_name, "Linux Debian");
  EXPECT_EQ(r.host.host_cpid, "fedcba9876543210fedcba9876543210");
  EXPECT_DOUBLE_EQ(r.time_stats.connected_frac, -1);
  EXPECT_DOUBLE_EQ(r.time_stats.now, 1763880000.25);
  EXPECT_DOUBLE_EQ(r.net_stats.avg_down, 7000);
  EXPECT_DOUBLE_EQ(r.disk_usage.d_project_share, 1e8);

  ASSERT_EQ(r.results.size(), 2u);
  const ReportedResult& ok = r.results[0];
  EXPECT_EQ(ok.name, "wu_17_0");
  EXPECT_EQ(ok.state, 5);
  EXPECT_DOUBLE_EQ(ok.final_cpu_time, 123.45);
  EXPECT_DOUBLE_EQ(ok.final_elapsed_time, 130);
  EXPECT_EQ(ok.exit_status, 0);
  EXPECT_EQ(ok.app_version_num, 101);
  EXPECT_DOUBLE_EQ(ok.peak_working_set_size, 52428800);
  EXPECT_EQ(ok.core_client_version, "7.20.2");
  EXPECT_EQ(ok.stderr_out, "starting <chunk> & computing\ndone\n");
  ASSERT_EQ(ok.output_files.size(), 1u);
  EXPECT_EQ(ok.output_files[0].name, "wu_17_0_0");
  EXPECT_DOUBLE_EQ(ok.output_files[0].nbytes, 4096);
  EXPECT_EQ(ok.output_files[0].md5_cksum, "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(r.results[1].exit_status, -177);
  EXPECT_EQ(r.results[1].state, 3);
  EXPECT_EQ(r.results[1].stderr_out, "");

  ASSERT_EQ(r.held_files.size(), 1u);
  EXPECT_EQ(r.held_files[0].name, "big_input.dat");
  EXPECT_EQ(r.held_files[0].status, 1);
  ASSERT_EQ(r.app_versions.size(), 1u);
  EXPECT_EQ(r.app_versions[0].app_name, "operand");
  EXPECT_TRUE(r.have_other_results);
  ASSERT_EQ(r.other_results.size(), 1u);
  EXPECT_EQ(r.other_results[0].name, "wu_19_0");
  EXPECT_EQ(r.other_results[0].app_version, 0);
  EXPECT_FALSE(r.have_in_progress_results);
}

SchedulerRequest sample_request() {
  auto parsed = parse_scheduler_request(kClientRequest, ProtocolLimits{});
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  return *parsed;
}

TEST(SchedulerRequest, RoundTripsThroughClientRenderer) {
  SchedulerRequest original = sample_request();
  original.have_in_progress_results = true;
  original.in_progress_results.push_back(InProgressResult{"wu_20_0", 1763990000, 500.25, 1});
  original.code_sign_key = "1024\nabcdef0123\n.";
  original.client_brand = "Tharsis";
  original.results[0].stderr_out = "text with ]]> inside and a CDATA end ]]> twice\n";
  auto again = parse_scheduler_request(render_scheduler_request(original), ProtocolLimits{});
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(*again, original);
}

TEST(SchedulerRequest, EscapedStringsSurviveRoundTrip) {
  SchedulerRequest request = sample_request();
  request.authenticator = "a<b>&\"c'";
  request.platform_name = "plat&<form>";
  request.host.p_model = "CPU \"quoted\" <model> & 'apostrophe'";
  request.host.domain_name = "a&b";
  request.results[0].name = "result<&>\"'";
  request.results[0].output_files[0].name = "out&<>";
  request.other_results[0].name = "other\"<&>";
  std::string xml = render_scheduler_request(request);
  EXPECT_EQ(xml.find("a<b>"), std::string::npos);
  auto again = parse_scheduler_request(xml, ProtocolLimits{});
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(*again, request);
}

TEST(SchedulerRequest, DuplicateReportOfOneResultIsKeptOnce) {
  SchedulerRequest request = sample_request();
  request.results.push_back(request.results[0]);
  request.results.back().final_cpu_time = 999;
  auto again = parse_scheduler_request(render_scheduler_request(request), ProtocolLimits{});
  ASSERT_TRUE(again.ok()) << again.error();
  ASSERT_EQ(again->results.size(), 2u);
  EXPECT_DOUBLE_EQ(again->results[0].final_cpu_time, 123.45);
}

void expect_error(std::string_view xml, const ProtocolLimits& limits,
                  const std::vector<std::string>& fragments) {
  auto parsed = parse_scheduler_request(xml, limits);
  ASSERT_FALSE(parsed.ok()) << "accepted: " << xml.substr(0, 200);
  for (const auto& fragment : fragments) {
    EXPECT_NE(parsed.error().find(fragment), std::string::npos)
        << "message '" << parsed.error() << "' lacks '" << fragment << "'";
  }
}

TEST(SchedulerRequest, MalformedXmlNamesLine) {
  expect_error("<scheduler_request>\n<hostid>1</hostid>\n<rpc_seqno>2</hostid>\n</scheduler_request>",
               ProtocolLimits{}, {"malformed XML", "line 3"});
}

TEST(SchedulerRequest, TruncatedRequestIsAnError) {
  std::string text = kClientRequest;
  for (size_t cut : {size_t{0}, size_t{10}, text.size() / 3, text.size() / 2, text.size() - 30}) {
    SCOPED_TRACE(cut);
    auto parsed = parse_scheduler_request(std::string_view(text).substr(0, cut), ProtocolLimits{});
    EXPECT_FALSE(parsed.ok());
  }
}

TEST(SchedulerRequest, WrongRootIsAnError) {
  expect_error("<scheduler_reply></scheduler_reply>", ProtocolLimits{},
               {"expected root element <scheduler_request>"});
  expect_error("   \n", ProtocolLimits{}, {"empty document"});
}

TEST(SchedulerRequest, WrongTypesNameTheElement) {
  expect_error("<scheduler_request>\n<hostid>abc</hostid></scheduler_request>", ProtocolLimits{},
               {"<scheduler_request/hostid>", "line 2", "expected an integer", "'abc'"});
  expect_error("<scheduler_request><host_info><p_fpops>fast</p_fpops></host_info></scheduler_request>",
               ProtocolLimits{}, {"host_info/p_fpops", "expected a number"});
  expect_error(
      "<scheduler_request><result><name>r</name><exit_status>1.5</exit_status></result></scheduler_request>",
      ProtocolLimits{}, {"result[1]/exit_status", "expected an integer"});
  expect_error("<scheduler_request><rpc_seqno>99999999999</rpc_seqno></scheduler_request>", ProtocolLimits{},
               {"rpc_seqno", "out of range"});
  expect_error("<scheduler_request><dont_send_work>yes</dont_send_work></scheduler_request>",
               ProtocolLimits{}, {"dont_send_work"});
  expect_error("<scheduler_request><authenticator><b>x</b></authenticator></scheduler_request>",
               ProtocolLimits{}, {"authenticator", "found element <b>"});
}

TEST(SchedulerRequest, NotANumberStatisticReadsAsZero) {
  auto parsed = parse_scheduler_request(
      "<scheduler_request><host_info><p_fpops>-nan</p_fpops><p_iops>inf</p_iops></host_info></"
      "scheduler_request>",
      ProtocolLimits{});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->host.p_fpops, 0);
  EXPECT_EQ(parsed->host.p_iops, 0);
}

TEST(SchedulerRequest, ResultWithoutNameIsAnError) {
  expect_error("<scheduler_request><result><state>5</state></result></scheduler_request>", ProtocolLimits{},
               {"result[1]", "missing or empty <name>"});
}

TEST(SchedulerRequest, OversizeDocumentIsRejectedBeforeParsing) {
  ProtocolLimits limits;
  limits.max_request_bytes = 1000;
  expect_error(kClientRequest, limits, {"exceeds the limit of 1000 bytes"});
}

TEST(SchedulerRequest, OversizeNameFieldIsAnError) {
  std::string xml =
      "<scheduler_request><authenticator>" + std::string(300, 'a') + "</authenticator></scheduler_request>";
  expect_error(xml, ProtocolLimits{}, {"authenticator", "longer than the limit of 255"});
}

TEST(SchedulerRequest, TooManyResultsIsAnError) {
  ProtocolLimits limits;
  limits.max_results = 3;
  std::string xml = "<scheduler_request>";
  for (int i = 0; i < 4; ++i) xml += "<result><name>r" + std::to_string(i) + "</name></result>";
  xml += "</scheduler_request>";
  expect_error(xml, limits, {"more than 3 reported results", "result[4]"});
  limits.max_results = 4;
  auto parsed = parse_scheduler_request(xml, limits);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->results.size(), 4u);
}

TEST(SchedulerRequest, TooManyOtherResultsIsAnError) {
  ProtocolLimits limits;
  limits.max_other_results = 2;
  std::string xml = "<scheduler_request><other_results>";
  for (int i = 0; i < 3; ++i) xml += "<other_result><name>o" + std::to_string(i) + "</name></other_result>";
  xml += "</other_results></scheduler_request>";
  expect_error(xml, limits, {"more than 2 other results"});
}

TEST(SchedulerRequest, DeepNestingIsAnErrorNotACrash) {
  std::string xml = "<scheduler_request>";
  for (int i = 0; i < 100000; ++i) xml += "<a>";
  for (int i = 0; i < 100000; ++i) xml += "</a>";
  xml += "</scheduler_request>";
  expect_error(xml, ProtocolLimits{}, {"nested deeper than 64"});
}

TEST(SchedulerRequest, TooManyNodesIsAnError) {
  ProtocolLimits limits;
  limits.max_elements = 100;
  std::string xml = "<scheduler_request>";
  for (int i = 0; i < 200; ++i) xml += "<x/>";
  xml += "</scheduler_request>";
  expect_error(xml, limits, {"more than 100 XML nodes"});
}

TEST(SchedulerRequest, LongStderrIsCutOrRejectedByLimit) {
  SchedulerRequest request = sample_request();
  request.results[0].stderr_out = std::string(5000, 'e');
  std::string xml = render_scheduler_request(request);
  ProtocolLimits limits;
  limits.max_stderr_bytes = 1000;
  auto cut = parse_scheduler_request(xml, limits);
  ASSERT_TRUE(cut.ok()) << cut.error();
  EXPECT_EQ(cut->results[0].stderr_out, std::string(1000, 'e'));
  EXPECT_TRUE(cut->results[0].stderr_truncated);
  EXPECT_FALSE(cut->results[1].stderr_truncated);
  limits.truncate_stderr = false;
  expect_error(xml, limits, {"result[1]/stderr_out", "stderr longer than the limit of 1000"});
}

TEST(SchedulerRequest, EntityExpansionIsNotPerformed) {
  // A DOCTYPE with entity definitions (the "billion laughs" attack) must not expand.
  std::string xml =
      "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>"
      "<scheduler_request><authenticator>&b;</authenticator></scheduler_request>";
  auto parsed = parse_scheduler_request(xml, ProtocolLimits{});
  if (parsed.ok()) {
    EXPECT_EQ(parsed->authenticator.find("aaaa"), std::string::npos) << parsed->authenticator;
  }
}

// Issue 13 item 2: text that is not UTF-8 reached MariaDB, which refused it (error 1366) and
// rolled back the RPC, every time: the host was locked out. Every text field now comes out
// valid UTF-8, and a NUL in stderr no longer makes the request malformed.
TEST(SchedulerRequest, TextThatIsNotUtf8ComesOutValidInEveryField) {
  const std::string bad = "\xff\xfe\xc3\x28\xed\xa0\x80";
  const std::string R = "\xEF\xBF\xBD";
  const std::string fixed = R + R + R + "(" + R + R + R;
  std::string xml =
      "<scheduler_request><authenticator>k</authenticator><platform_name>p" + bad +
      "</platform_name><host_info><domain_name>d" + bad + "</domain_name><os_name>" + bad +
      "</os_name><os_version>" + bad + "</os_version><p_vendor>" + bad + "</p_vendor><p_model>" + bad +
      "</p_model><host_cpid>" + bad + "</host_cpid></host_info><result><name>r" + bad +
      "</name><state>5</state><stderr_out><core_client_version>7.20.2</core_client_version><![CDATA[\n"
      "out " +
      bad + std::string("\0", 1) + " end\n]]></stderr_out></result></scheduler_request>";
  auto parsed = parse_scheduler_request(xml, ProtocolLimits{});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->platform_name, "p" + fixed);
  EXPECT_EQ(parsed->host.domain_name, "d" + fixed);
  EXPECT_EQ(parsed->host.os_name, fixed);
  EXPECT_EQ(parsed->host.os_version, fixed);
  EXPECT_EQ(parsed->host.p_vendor, fixed);
  EXPECT_EQ(parsed->host.p_model, fixed);
  EXPECT_EQ(parsed->host.host_cpid, fixed);
  ASSERT_EQ(parsed->results.size(), 1u);
  EXPECT_EQ(parsed->results[0].name, "r" + fixed);
  EXPECT_EQ(parsed->results[0].stderr_out, "out " + fixed + R + " end\n");
  EXPECT_EQ(parsed->results[0].core_client_version, "7.20.2");
}

TEST(SchedulerRequest, NulBytesAnywhereInTextAreReadAsReplacementCharacters) {
  std::string xml =
      "<scheduler_request><authenticator>k</authenticator><host_info><domain_name>a@b"
      "</domain_name></host_info><result><name>r</name><stderr_out>x@y</stderr_out></result>"
      "</scheduler_request>";
  for (auto& c : xml) {
    if (c == '@') c = '\0';
  }
  auto parsed = parse_scheduler_request(xml, ProtocolLimits{});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->host.domain_name,
            "a\xEF\xBF\xBD"
            "b");
  ASSERT_EQ(parsed->results.size(), 1u);
  EXPECT_EQ(parsed->results[0].name, "r");
  EXPECT_EQ(parsed->results[0].stderr_out,
            "x\xEF\xBF\xBD"
            "y");
}

TEST(SchedulerRequest, StderrCutAtTheLimitKeepsWholeCharactersAndStaysWithinIt) {
  ProtocolLimits limits;
  limits.max_stderr_bytes = 10;
  // Nine bytes then a two-byte character across the limit: the character is dropped.
  std::string xml =
      "<scheduler_request><result><name>r</name><stderr_out>123456789\xC3\xA9xyz</stderr_out>"
      "</result></scheduler_request>";
  auto parsed = parse_scheduler_request(xml, limits);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->results[0].stderr_out, "123456789");
  EXPECT_TRUE(parsed->results[0].stderr_truncated);
  // Ten bad bytes: replaced, then cut back to the limit (three U+FFFD fill nine bytes).
  xml = "<scheduler_request><result><name>r</name><stderr_out>" + std::string(10, '\xff') +
        "</stderr_out></result></scheduler_request>";
  parsed = parse_scheduler_request(xml, limits);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->results[0].stderr_out, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(parsed->results[0].stderr_truncated);
}

}  // namespace
}  // namespace tharsis
