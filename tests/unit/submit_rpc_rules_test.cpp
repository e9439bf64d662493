// The remote submission endpoint's pure parts: the form body, the request document under
// its limits, the batch description, the input and name rules, access decisions, job
// status, and the assimilator's per-batch counts.
#include <gtest/gtest.h>

#include "client/tharsis-submit/job_file.h"
#include "daemons/assimilator/lib/batch_progress.h"
#include "sched/lib/submit/form_body.h"
#include "sched/lib/submit/job_files.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_plan.h"
#include "sched/lib/submit/submit_reply.h"
#include "sched/lib/submit/submit_request.h"
#include "sched/lib/submit/zip_writer.h"

namespace tharsis {
namespace {

TEST(SubmitForm, UrlencodedFieldRequestIsDecoded) {
  auto doc = extract_request_document("other=1&request=%3Cping%3E+%3C%2Fping%3E%0A");
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ(*doc, "<ping> </ping>\n");
}

TEST(SubmitForm, MultipartFieldRequestIsFound) {
  std::string body =
      "--XyZ\r\nContent-Disposition: form-data; name=\"file_0\"; filename=\"a\"\r\n\r\nabc\r\n"
      "--XyZ\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n<ping/>\r\n--XyZ--\r\n";
  auto doc = extract_request_document(body);
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ(*doc, "<ping/>");
}

TEST(SubmitForm, RawXmlBodyIsTheDocument) {
  auto doc = extract_request_document("  <ping/>");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, "<ping/>");
}

TEST(SubmitForm, MissingFieldAndBadEscapesAreErrors) {
  EXPECT_FALSE(extract_request_document("foo=bar").ok());
  EXPECT_FALSE(extract_request_document("request=%3").ok());
  EXPECT_FALSE(extract_request_document("request=%zz").ok());
  EXPECT_FALSE(extract_request_document("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n").ok());
  EXPECT_FALSE(extract_request_document("").ok());
}

TEST(SubmitRequest, RootElementNameSkipsDeclarationAndComments) {
  EXPECT_EQ(root_element_name("<?xml version=\"1.0\"?>\n<!-- hi --><query_batch>"), "query_batch");
  EXPECT_EQ(root_element_name("<ping/>"), "ping");
  EXPECT_EQ(root_element_name("text"), "");
}

TEST(SubmitRequest, DoctypeAndEntitiesAreRefusedBeforeParsing) {
  SubmitLimits limits;
  auto doc = load_submit_document("<!DOCTYPE a [<!ENTITY x \"y\">]><ping>&x;</ping>", limits);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error().find("DOCTYPE"), std::string::npos);
}

TEST(SubmitRequest, DepthSizeAndNodeLimits) {
  SubmitLimits limits;
  limits.max_jobs = 2;
  std::string deep = "<ping>";
  for (int i = 0; i < 20; ++i) deep += "<a>";
  for (int i = 0; i < 20; ++i) deep += "</a>";
  deep += "</ping>";
  EXPECT_FALSE(load_submit_document(deep, limits).ok());
  limits.max_request_bytes = 10;
  EXPECT_FALSE(load_submit_document("<ping>      </ping>", limits).ok());
  SubmitLimits few;
  few.max_jobs = 1;
  few.base_nodes = 5;
  few.nodes_per_job = 1;
  std::string many = "<ping>";
  for (int i = 0; i < 50; ++i) many += "<x/>";
  many += "</ping>";
  EXPECT_FALSE(load_submit_document(many, few).ok());
}

TEST(SubmitRequest, BatchDescriptionWithJobsAndModes) {
  SubmitLimits limits;
  auto doc = load_submit_document(
      "<submit_batch><authenticator>k</authenticator><batch><app_name>app</app_name><batch_id>7</batch_id>"
      "<priority>3</priority><job_params><rsc_fpops_est>2e9</rsc_fpops_est><delay_bound>600</delay_bound>"
      "</job_params><job><name>a</name><command_line> -x 1 </command_line><rsc_fpops_est>5e9</rsc_fpops_est>"
      "<input_file><mode>inline</mode><source> keep spaces </source></input_file>"
      "<input_file><mode>remote</mode><url>https://h/x</url><nbytes>10.000000</nbytes><md5>"
      "0123456789abcdef0123456789abcdef</md5></input_file></job><job/></batch></submit_batch>",
      limits);
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ((*doc)->operation, "submit_batch");
  EXPECT_EQ(*request_authenticator(**doc), "k");
  auto batch = parse_batch_description(**doc, limits);
  ASSERT_TRUE(batch.ok()) << batch.error();
  EXPECT_EQ(batch->app_name, "app");
  EXPECT_EQ(batch->batch_id, 7);
  EXPECT_EQ(*batch->priority, 3);
  EXPECT_DOUBLE_EQ(batch->job_params.delay_bound, 600);
  ASSERT_EQ(batch->jobs.size(), 2u);
  EXPECT_EQ(batch->jobs[0].command_line, "-x 1");
  ASSERT_EQ(batch->jobs[0].inputs.size(), 2u);
  EXPECT_EQ(batch->jobs[0].inputs[0].source, " keep spaces ");
  EXPECT_EQ(batch->jobs[0].inputs[1].mode, InputMode::Remote);
  EXPECT_DOUBLE_EQ(batch->jobs[0].inputs[1].nbytes, 10);

  JobSpec spec = job_spec_for(*batch, batch->jobs[0], 4, 7, "a", "templates/t");
  EXPECT_DOUBLE_EQ(spec.rsc_fpops_est, 5e9);  // the job's own estimate wins
  EXPECT_EQ(spec.delay_bound, 600);
  EXPECT_EQ(spec.priority, 3);
  EXPECT_EQ(spec.batch, 7);
  JobSpec second = job_spec_for(*batch, batch->jobs[1], 4, 7, "b", "templates/t");
  EXPECT_DOUBLE_EQ(second.rsc_fpops_est, 2e9);  // the batch's job_params
}

TEST(SubmitRequest, TooManyJobsUnknownModeAndMissingAppAreErrors) {
  SubmitLimits limits;
  limits.max_jobs = 2;
  auto doc = load_submit_document(
      "<submit_batch><batch><app_name>a</app_name><job/><job/><job/></batch></submit_batch>", limits);
  ASSERT_TRUE(doc.ok()) << doc.error();
  auto batch = parse_batch_description(**doc, limits);
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.error().find("exceeds the limit"), std::string::npos);
  auto mode = load_submit_document(
      "<submit_batch><batch><app_name>a</app_name><job><input_file><mode>ftp</mode></input_file></job></"
      "batch>"
      "</submit_batch>",
      SubmitLimits{});
  ASSERT_TRUE(mode.ok());
  EXPECT_FALSE(parse_batch_description(**mode, SubmitLimits{}).ok());
  auto no_app = load_submit_document("<submit_batch><batch><job/></batch></submit_batch>", SubmitLimits{});
  ASSERT_TRUE(no_app.ok());
  EXPECT_FALSE(parse_batch_description(**no_app, SubmitLimits{}).ok());
}

// Found by fuzz/submit_request_fuzz.cpp (fuzz/regressions/submit_request/batch-id-beyond-int64):
// <batch_id>3888...8</batch_id> (4e40) was converted to int64_t before its range was
// checked, undefined behaviour in submit_rpc for anyone's request; -2^63 was taken as an id.
TEST(SubmitRequest, IntegersBeyondTwoToThe53AreAnError) {
  auto id_of = [](const std::string& text) -> Result<int64_t> {
    auto doc = load_submit_document("<retire_batch><batch_id>" + text + "</batch_id></retire_batch>",
                                    SubmitLimits{});
    if (!doc.ok()) return make_error(doc.error());
    return optional_integer(**doc, "batch_id");
  };
  for (const char* bad : {"38888888888888888888888888888888888888888", "-9223372036854775808",
                          "9223372036854775808", "1e300", "9007199254740994", "2.5"}) {
    auto id = id_of(bad);
    ASSERT_FALSE(id.ok()) << bad;
    EXPECT_NE(id.error().find("expected an integer"), std::string::npos) << id.error();
  }
  EXPECT_EQ(*id_of("12.000000"), 12);
  EXPECT_EQ(*id_of("9007199254740992"), int64_t{1} << 53);
  EXPECT_EQ(*id_of("-7"), -7);
}

TEST(SubmitPlan, InputRules) {
  const SubmitLimits limits;
  SubmitInput staged{InputMode::LocalStaged, "data_1.bin"};
  EXPECT_TRUE(check_input(staged, 1, 1, limits).ok());
  for (const char* bad : {"../x", "/etc/passwd", ".x", "a/b", "", "a b"}) {
    staged.source = bad;
    EXPECT_FALSE(check_input(staged, 1, 1, limits).ok()) << bad;
  }
  SubmitInput remote{InputMode::Remote, "", "https://example.org/f", 10, "0123456789abcdef0123456789abcdef"};
  EXPECT_TRUE(check_input(remote, 1, 1, limits).ok());
  SubmitInput file_url = remote;
  file_url.url = "file:///etc/passwd";
  EXPECT_FALSE(check_input(file_url, 1, 1, limits).ok());
  SubmitInput bad_md5 = remote;
  bad_md5.md5 = "xyz";
  EXPECT_FALSE(check_input(bad_md5, 1, 1, limits).ok());
  SubmitInput fraction = remote;
  fraction.nbytes = 1.5;
  EXPECT_FALSE(check_input(fraction, 1, 1, limits).ok());
  EXPECT_FALSE(check_input(SubmitInput{InputMode::Local, "/etc/passwd"}, 1, 1, limits).ok());
}

TEST(SubmitPlan, SandboxInputNamesAnUploadedJobFile) {
  const SubmitLimits limits;
  const std::string jf = "jf_0123456789abcdef0123456789abcdef";
  EXPECT_TRUE(check_input(SubmitInput{InputMode::Sandbox, jf}, 1, 1, limits).ok());
  for (const char* bad :
       {"f", "../jf_0123456789abcdef0123456789abcdef", "jf_0123456789ABCDEF0123456789ABCDEF", "jf_0123",
        "/etc/passwd", "jf_0123456789abcdef0123456789abcdex"}) {
    EXPECT_FALSE(check_input(SubmitInput{InputMode::Sandbox, bad}, 1, 1, limits).ok()) << bad;
  }
  // The account must hold the file: mode sandbox, and local_staged with a job file name.
  EXPECT_TRUE(uses_sandbox(SubmitInput{InputMode::Sandbox, jf}));
  EXPECT_TRUE(uses_sandbox(SubmitInput{InputMode::LocalStaged, jf}));
  EXPECT_FALSE(uses_sandbox(SubmitInput{InputMode::LocalStaged, "data_1.bin"}));
  EXPECT_FALSE(uses_sandbox(SubmitInput{InputMode::Inline, jf}));
}

TEST(SubmitPlan, SemilocalOnlyWhenTheProjectEnablesIt) {
  SubmitLimits limits;
  SubmitInput fetch{InputMode::Semilocal, "http://files.example.org/in.dat"};
  auto off = check_input(fetch, 2, 1, limits);
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().find("submit_semilocal_allow"), std::string::npos) << off.error();
  limits.semilocal_allow = true;
  EXPECT_TRUE(check_input(fetch, 2, 1, limits).ok());
  for (const char* bad :
       {"file:///etc/passwd", "ftp://x.org/f", "gopher://x/1", "http://a b/c", "/etc/passwd"}) {
    EXPECT_FALSE(check_input(SubmitInput{InputMode::Semilocal, bad}, 1, 1, limits).ok()) << bad;
  }
}

TEST(SubmitLimits, SemilocalSettingsFromConfig) {
  ProjectConfig config;
  EXPECT_FALSE(submit_limits(config).semilocal_allow);
  EXPECT_EQ(submit_limits(config).semilocal_max_bytes, size_t{100} << 20);
  config.other["submit_semilocal_allow"] = "";  // <submit_semilocal_allow/>
  config.other["submit_semilocal_max_bytes"] = "4096";
  EXPECT_TRUE(submit_limits(config).semilocal_allow);
  EXPECT_EQ(submit_limits(config).semilocal_max_bytes, 4096u);
  config.other["submit_semilocal_allow"] = "0";
  config.other["submit_semilocal_max_bytes"] = "-5";
  EXPECT_FALSE(submit_limits(config).semilocal_allow);
  EXPECT_EQ(submit_limits(config).semilocal_max_bytes, size_t{100} << 20);
}

TEST(SubmitPlan, NamesAndStatus) {
  EXPECT_EQ(job_file_name("ABCDEF"), "jf_abcdef");
  EXPECT_EQ(default_job_name("app", 12, 3), "app_12_3");
  EXPECT_EQ(input_open_name(0), "in");
  EXPECT_EQ(input_open_name(2), "in2");
  std::vector<SubmitJob> jobs(3);
  jobs[0].name = "a";
  jobs[2].name = "a";
  EXPECT_EQ(duplicate_job_name(jobs), "a");
  jobs[2].name = "b";
  EXPECT_EQ(duplicate_job_name(jobs), "");
  EXPECT_STREQ(job_status(5, 0, false), "done");
  EXPECT_STREQ(job_status(0, 16, true), "error");
  EXPECT_STREQ(job_status(0, 0, true), "in_progress");
  EXPECT_STREQ(job_status(0, 0, false), "queued");
  EXPECT_DOUBLE_EQ(estimate_batch_seconds(1e12, 0), 1000);  // at least 1 GFLOPS
  EXPECT_DOUBLE_EQ(estimate_batch_seconds(1e12, 1e10), 100);
}

TEST(SubmitAccess, GrantDecisions) {
  EXPECT_FALSE(may_submit_to_app(std::nullopt, true));
  SubmitGrant all{1, true};
  EXPECT_TRUE(may_submit_to_app(all, false));
  SubmitGrant listed{1, false};
  EXPECT_FALSE(may_submit_to_app(listed, false));
  EXPECT_TRUE(may_submit_to_app(listed, true));
  SubmitGrant limited{1, true};
  EXPECT_FALSE(jobs_in_progress_violation(limited, 1000000, 1000000));  // 0 = no limit
  limited.max_jobs_in_progress = 10;
  EXPECT_FALSE(jobs_in_progress_violation(limited, 4, 6));
  EXPECT_TRUE(jobs_in_progress_violation(limited, 5, 6));
}

TEST(SubmitReply, ErrorsAreWellFormedAndEscaped) {
  EXPECT_EQ(render_submit_error("query_batch", "no <batch> & more"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<query_batch>\n<error>\n<error_num>-1</error_num>\n"
            "<error_msg>no &lt;batch&gt; &amp; more</error_msg>\n</error>\n</query_batch>\n");
  EXPECT_NE(render_submit_error("", "x").find("?>\n<error>"), std::string::npos);
}

TEST(BatchProgress, CountsPerBatchSkipJobsWithoutBatch) {
  std::vector<WorkunitRow> settled(4);
  settled[0].batch = 3;
  settled[0].canonical_resultid = 9;
  settled[0].canonical_credit = 2.5;
  settled[1].batch = 3;
  settled[1].error_mask = 16;
  settled[2].batch = 0;  // not a batch job
  settled[3].batch = 4;
  settled[3].canonical_resultid = 1;
  auto counts = batch_counts(settled);
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[3].done, 1);
  EXPECT_EQ(counts[3].errors, 1);
  EXPECT_DOUBLE_EQ(counts[3].credit, 2.5);
  EXPECT_EQ(counts[4].done, 1);
}

}  // namespace
}  // namespace tharsis

namespace tharsis {
namespace {

TEST(SubmitClientJobFile, LinesInputsAndCommandLines) {
  auto jobs = submit_client::parse_job_file(
      "# two jobs\n"
      "in/a.txt staged:shared.dat -- --seed 1 --fast\n"
      "\n"
      "remote:1234:0123456789abcdef0123456789abcdef:https://h.example/x.bin\n"
      "-- --only-args\n");
  ASSERT_TRUE(jobs.ok()) << jobs.error();
  ASSERT_EQ(jobs->size(), 3u);
  ASSERT_EQ((*jobs)[0].inputs.size(), 2u);
  EXPECT_EQ((*jobs)[0].inputs[0].kind, submit_client::JobInput::Kind::Inline);
  EXPECT_EQ((*jobs)[0].inputs[1].value, "shared.dat");
  EXPECT_EQ((*jobs)[0].command_line, "--seed 1 --fast");
  EXPECT_EQ((*jobs)[1].inputs[0].nbytes, 1234);
  EXPECT_EQ((*jobs)[1].inputs[0].value, "https://h.example/x.bin");
  EXPECT_EQ((*jobs)[2].command_line, "--only-args");
  EXPECT_FALSE(submit_client::parse_job_file("remote:12:abc\n").ok());
  EXPECT_FALSE(submit_client::parse_job_file("# nothing\n").ok());
}

TEST(SubmitClientJobFile, RequestEscapesInlineContent) {
  auto jobs = submit_client::parse_job_file("f -- a<b\n");
  ASSERT_TRUE(jobs.ok());
  auto xml = submit_client::submit_batch_request(
      "k&", "app", "", *jobs, [](const std::string&) -> Result<std::string> { return std::string("x<y&z"); });
  ASSERT_TRUE(xml.ok());
  EXPECT_NE(xml->find("<authenticator>k&amp;</authenticator>"), std::string::npos);
  EXPECT_NE(xml->find("<source>x&lt;y&amp;z</source>"), std::string::npos);
  EXPECT_NE(xml->find("<command_line>a&lt;b</command_line>"), std::string::npos);
  // The server's parser reads it back.
  auto doc = load_submit_document(*xml, SubmitLimits{});
  ASSERT_TRUE(doc.ok()) << doc.error();
  auto batch = parse_batch_description(**doc, SubmitLimits{});
  ASSERT_TRUE(batch.ok()) << batch.error();
  EXPECT_EQ(batch->jobs[0].inputs[0].source, "x<y&z");
}

}  // namespace
}  // namespace tharsis

namespace tharsis {
namespace {

TEST(ZipWriter, StoredEntriesWithCentralDirectory) {
  ZipWriter zip;
  zip.add("job/out", "hello\n");
  EXPECT_EQ(zip.entries(), 1u);
  std::string archive = zip.finish();
  // local header 30 + name 7 + data 6, central entry 46 + name 7, end record 22
  ASSERT_EQ(archive.size(), 30u + 7 + 6 + 46 + 7 + 22);
  EXPECT_EQ(archive.substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_EQ(archive.substr(30, 7), "job/out");
  EXPECT_EQ(archive.substr(37, 6), "hello\n");
  EXPECT_EQ(archive.substr(43, 4), std::string("PK\x01\x02", 4));
  EXPECT_EQ(archive.substr(archive.size() - 22, 4), std::string("PK\x05\x06", 4));
  // CRC-32 of "hello\n" is 0x363a3020, little-endian at offset 14.
  EXPECT_EQ(archive.substr(14, 4), std::string("\x20\x30\x3a\x36", 4));
  EXPECT_EQ(zip.entries(), 0u);
}

}  // namespace
}  // namespace tharsis

namespace tharsis {
namespace {

TEST(SubmitForm, MultipartPartsWithFileNames) {
  std::string body =
      "--B\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n<x/>\r\n"
      "--B\r\nContent-Disposition: form-data; name=\"file_0\"; filename=\"a.txt\"\r\nContent-Type: x\r\n\r\n"
      "line1\r\nline2\r\n--B--\r\n";
  auto parts = multipart_parts(body, 10);
  ASSERT_TRUE(parts.ok()) << parts.error();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "request");
  EXPECT_EQ((*parts)[1].name, "file_0");
  EXPECT_EQ((*parts)[1].filename, "a.txt");
  EXPECT_EQ((*parts)[1].content, "line1\r\nline2");
  EXPECT_FALSE(multipart_parts(body, 1).ok());
  EXPECT_TRUE(multipart_parts("request=x", 10)->empty());
}

TEST(JobFiles, NameMustBeJfAndTheMd5OfTheContent) {
  EXPECT_TRUE(names_its_content("jf_d41d8cd98f00b204e9800998ecf8427e", ""));
  EXPECT_FALSE(names_its_content("jf_d41d8cd98f00b204e9800998ecf8427e", "x"));
  EXPECT_FALSE(names_its_content("d41d8cd98f00b204e9800998ecf8427e", ""));
  EXPECT_FALSE(names_its_content("jf_D41D8CD98F00B204E9800998ECF8427E", ""));
}

}  // namespace
}  // namespace tharsis
