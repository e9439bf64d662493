// tharsis-submit: remote job submission for shell users (docs/remote_submission.md). It
// needs only the project's URL and an account's authenticator (no config.xml, no
// database): it speaks submit_rpc's protocol over HTTP(S) with libcurl, posting as BOINC's
// C++ client does (multipart form field "request").
//   tharsis-submit --url URL --authenticator KEY ping
//   tharsis-submit --url URL --authenticator KEY submit --app APP [--batch_name N] JOB_FILE
//   tharsis-submit --url URL --authenticator KEY query [BATCH_ID] [--jobs]
//   tharsis-submit --url URL --authenticator KEY abort BATCH_ID
//   tharsis-submit --url URL --authenticator KEY abort_jobs JOB_NAME...
//   tharsis-submit --url URL --authenticator KEY retire BATCH_ID
//   tharsis-submit --url URL --authenticator KEY upload FILE...        (job_file.php)
//   tharsis-submit --url URL --authenticator KEY outputs BATCH_ID ZIP  (get_output.php)
//   tharsis-submit --url URL --authenticator KEY graph (submit|query|output|abort) ...
//   tharsis-submit --url URL --authenticator KEY tasks --app APP TASKS_FILE
//   (operand graphs and clustered tasks: client/tharsis-submit/graph_commands.h)
// `upload` sends the files the project lacks, named jf_<md5>, and prints for each the
// job-file word that names it (staged:jf_<md5>); `outputs` saves the batch's outputs.
// URL is the project's master URL (…/<name>/); --authenticator may instead come from
// $THARSIS_AUTHENTICATOR. Job files: client/tharsis-submit/job_file.h. Exit 0 on success,
// 1 when the server answers with an error (printed), 2 on usage errors.
#include <curl/curl.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "client/tharsis-submit/graph_commands.h"
#include "client/tharsis-submit/job_file.h"
#include "lib/crypto/md5.h"

using namespace tharsis;
using namespace tharsis::submit_client;

namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::string endpoint_of(const std::string& url, const std::string& page) {
  return url + (url.empty() || url.back() == '/' ? "" : "/") + page;
}

// POSTs `xml` (and `files` as file_0, file_1, ...) to <url><page>; the reply's root
// element's name, or an error.
Result<std::string> post(const std::string& url, const std::string& xml, pugi::xml_document& reply,
                         const std::string& page = "submit_rpc_handler.php",
                         const std::vector<std::string>& files = {}) {
  CURL* curl = curl_easy_init();
  if (!curl) return make_error("cannot start libcurl");
  curl_mime* mime = curl_mime_init(curl);
  curl_mimepart* part = curl_mime_addpart(mime);
  curl_mime_name(part, "request");
  curl_mime_data(part, xml.data(), xml.size());
  for (size_t i = 0; i < files.size(); ++i) {
    part = curl_mime_addpart(mime);
    curl_mime_name(part, ("file_" + std::to_string(i)).c_str());
    curl_mime_filedata(part, files[i].c_str());
  }
  std::string body, endpoint = endpoint_of(url, page);
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, endpoint.c_str());
  curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "tharsis-submit");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 600L);
  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_mime_free(mime);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) return make_error(endpoint + ": " + curl_easy_strerror(code));
  if (status != 200) return make_error(endpoint + ": HTTP status " + std::to_string(status));
  if (!reply.load_string(body.c_str()))
    return make_error(endpoint + ": the reply is not XML: " + body.substr(0, 200));
  pugi::xml_node root = reply.document_element();
  pugi::xml_node error = std::string(root.name()) == "error" ? root : root.child("error");
  if (error) return make_error(std::string("server error: ") + error.child_value("error_msg"));
  return std::string(root.name());
}

std::string tag(const std::string& name, const std::string& value) {
  return "<" + name + ">" + escape(value) + "</" + name + ">\n";
}

void print_batch(pugi::xml_node b) {
  static const char* kStates[] = {"init", "in progress", "completed", "aborted", "retired"};
  int state = b.child("state").text().as_int();
  std::cout << "batch " << b.child_value("id") << " '" << b.child_value("name") << "' app "
            << b.child_value("app_name") << ": " << (state >= 0 && state <= 4 ? kStates[state] : "?") << ", "
            << b.child_value("njobs") << " jobs, " << b.child_value("njobs_done") << " done, "
            << b.child_value("nerror_jobs") << " in error, fraction done " << b.child_value("fraction_done")
            << "\n";
}

// GETs `url` into `path`; an error for a transport failure or a status other than 200.
Status download(const std::string& url, const std::string& path) {
  std::string body;
  CURL* curl = curl_easy_init();
  if (!curl) return make_error("cannot start libcurl");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "tharsis-submit");
  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) return make_error(curl_easy_strerror(code));
  if (status != 200) return make_error("HTTP status " + std::to_string(status) + ": " + body.substr(0, 200));
  std::ofstream out(path, std::ios::binary);
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  if (!out) return make_error("cannot write " + path);
  return Status::success();
}

// `upload`: query_files, then upload_files of the absent ones.
int upload(const std::string& url, const std::string& key, const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const auto& path : paths) {
    auto md5 = md5_file_hex(path);
    if (!md5.ok()) {
      std::cerr << "tharsis-submit: " << md5.error() << "\n";
      return 2;
    }
    names.push_back("jf_" + *md5);
  }
  std::string listed = tag("authenticator", key);
  for (const auto& name : names) listed += tag("phys_name", name);
  pugi::xml_document reply;
  auto asked = post(url, "<query_files>\n" + listed + "</query_files>\n", reply, "job_file.php");
  if (!asked.ok()) {
    std::cerr << "tharsis-submit: " << asked.error() << "\n";
    return 1;
  }
  std::string absent_names = tag("authenticator", key);
  std::vector<std::string> absent_paths;
  for (pugi::xml_node f : reply.document_element().child("absent_files").children("file")) {
    size_t i = static_cast<size_t>(f.text().as_ullong());
    if (i >= names.size()) continue;
    absent_names += tag("phys_name", names[i]);
    absent_paths.push_back(paths[i]);
  }
  if (!absent_paths.empty()) {
    pugi::xml_document uploaded;
    auto sent = post(url, "<upload_files>\n" + absent_names + "</upload_files>\n", uploaded, "job_file.php",
                     absent_paths);
    if (!sent.ok()) {
      std::cerr << "tharsis-submit: " << sent.error() << "\n";
      return 1;
    }
  }
  for (size_t i = 0; i < paths.size(); ++i) std::cout << paths[i] << " staged:" << names[i] << "\n";
  std::cerr << "uploaded " << absent_paths.size() << " of " << paths.size() << " file(s)\n";
  return 0;
}

int usage() {
  std::cerr
      << "usage: tharsis-submit --url URL [--authenticator KEY] (ping | submit --app APP [--batch_name N] "
         "JOB_FILE | query [BATCH_ID] [--jobs] | abort BATCH_ID | abort_jobs NAME... | retire BATCH_ID | "
         "graph ... | tasks ...)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url, key = std::getenv("THARSIS_AUTHENTICATOR") ? std::getenv("THARSIS_AUTHENTICATOR") : "";
  std::string app, batch_name;
  bool jobs_too = false;
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--url")
      url = value();
    else if (a == "--authenticator")
      key = value();
    else if (a == "--app")
      app = value();
    else if (a == "--batch_name")
      batch_name = value();
    else if (a == "--jobs")
      jobs_too = true;
    else if (a == "--help" || a == "-h")
      return usage();
    else
      words.push_back(a);
  }
  if (url.empty() || words.empty()) return usage();
  std::string command = words[0];
  std::string auth = tag("authenticator", key);
  if (command == "upload" && words.size() >= 2) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return upload(url, key, std::vector<std::string>(words.begin() + 1, words.end()));
  }
  if (command == "outputs" && words.size() == 3) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    std::string id = words[1];
    Status saved = download(endpoint_of(url, "get_output.php") + "?cmd=batch_files&batch_id=" + id +
                                "&auth_str=" + md5_hex(key + id),
                            words[2]);
    if (!saved.ok()) {
      std::cerr << "tharsis-submit: " << saved.error() << "\n";
      return 1;
    }
    std::cout << "saved " << words[2] << "\n";
    return 0;
  }
  if (command == "graph" || command == "tasks") {  // Tharsis's extensions: graph_commands.h
    curl_global_init(CURL_GLOBAL_DEFAULT);
    GraphTransport transport{[&](const std::string& xml, pugi::xml_document& reply) -> Status {
                               auto answered = post(url, xml, reply);
                               return answered.ok() ? Status::success()
                                                    : Status(make_error(answered.error()));
                             },
                             [&](const std::string& page, const std::string& path) {
                               return download(endpoint_of(url, page), path);
                             }};
    return run_graph_command(words, key, app, transport);
  }
  std::string request;
  if (command == "ping") {
    request = "<ping/>\n";
  } else if (command == "submit") {
    if (app.empty() || words.size() != 2) return usage();
    std::ifstream in(words[1]);
    if (!in) {
      std::cerr << "tharsis-submit: cannot read " << words[1] << "\n";
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto jobs = parse_job_file(text.str());
    if (!jobs.ok()) {
      std::cerr << "tharsis-submit: " << words[1] << ": " << jobs.error() << "\n";
      return 2;
    }
    auto built =
        submit_batch_request(key, app, batch_name, *jobs, [](const std::string& path) -> Result<std::string> {
          std::ifstream file(path, std::ios::binary);
          if (!file) return make_error("cannot read input file " + path);
          std::stringstream content;
          content << file.rdbuf();
          return content.str();
        });
    if (!built.ok()) {
      std::cerr << "tharsis-submit: " << built.error() << "\n";
      return 2;
    }
    request = std::move(*built);
  } else if (command == "query" && words.size() == 1) {
    request = "<query_batches>\n" + auth + "</query_batches>\n";
  } else if (command == "query" && words.size() == 2) {
    request = "<query_batch>\n" + auth + tag("batch_id", words[1]) + "<get_job_details>" +
              (jobs_too ? "1" : "0") + "</get_job_details>\n</query_batch>\n";
  } else if ((command == "abort" || command == "retire") && words.size() == 2) {
    std::string op = command == "abort" ? "abort_batch" : "retire_batch";
    request = "<" + op + ">\n" + auth + tag("batch_id", words[1]) + "</" + op + ">\n";
  } else if (command == "abort_jobs" && words.size() >= 2) {
    request = "<abort_jobs>\n" + auth;
    for (size_t i = 1; i < words.size(); ++i) request += tag("job_name", words[i]);
    request += "</abort_jobs>\n";
  } else {
    return usage();
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  pugi::xml_document reply;
  auto answered = post(url, request, reply);
  if (!answered.ok()) {
    std::cerr << "tharsis-submit: " << answered.error() << "\n";
    return 1;
  }
  pugi::xml_node root = reply.document_element();
  if (command == "ping" || command == "abort" || command == "retire" || command == "abort_jobs") {
    std::cout << command << ": ok\n";
  } else if (command == "submit") {
    std::cout << "batch " << root.child_value("batch_id") << "\n";
  } else if (words.size() == 1) {
    for (pugi::xml_node b : root.children("batch")) print_batch(b);
  } else {
    print_batch(root);
    if (jobs_too) {
      for (pugi::xml_node j : root.children("job")) {
        std::cout << "  job " << j.child_value("id") << " " << j.child_value("name") << ": "
                  << j.child_value("status") << "\n";
      }
    }
  }
  return 0;
}
