// Implementation of tools/lib/db_purge.h.
#include "tools/lib/db_purge.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>

#include "db/purge_store.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {


std::string day_of(int64_t time) {
  std::time_t t = time;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", &utc);
  return day;
}

void write_workunit(std::ostringstream& out, const PurgeCandidate& c) {
  const WorkunitRow& w = c.workunit;
  out << "<workunit>\n  <id>" << w.id << "</id>\n  <name>" << xml_escape(w.name) << "</name>\n  <appid>" << w.appid
      << "</appid>\n  <create_time>" << w.create_time << "</create_time>\n  <canonical_resultid>"
      << w.canonical_resultid << "</canonical_resultid>\n  <error_mask>" << w.error_mask
      << "</error_mask>\n  <canonical_credit>" << w.canonical_credit << "</canonical_credit>\n  <assimilated_time>"
      << c.assimilated_time << "</assimilated_time>\n  <xml_doc>" << xml_escape(w.xml_doc) << "</xml_doc>\n";
  for (const auto& r : c.results) {
    out << "  <result>\n    <id>" << r.id << "</id>\n    <name>" << xml_escape(r.name) << "</name>\n    <hostid>"
        << r.hostid << "</hostid>\n    <server_state>" << code(r.server_state) << "</server_state>\n    <outcome>"
        << code(r.outcome) << "</outcome>\n    <validate_state>" << code(r.validate_state)
        << "</validate_state>\n    <exit_status>" << r.exit_status << "</exit_status>\n    <cpu_time>" << r.cpu_time
        << "</cpu_time>\n    <granted_credit>" << r.granted_credit << "</granted_credit>\n    <sent_time>"
        << r.sent_time << "</sent_time>\n    <received_time>" << r.received_time << "</received_time>\n  </result>\n";
  }
  out << "</workunit>\n";
}

Status write_gzip_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  gzFile gz = gzopen(tmp.c_str(), "wb6");
  if (!gz) return make_error("db_purge: cannot create " + tmp);
  bool ok = gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
  ok = gzclose(gz) == Z_OK && ok;
  int fd = open(tmp.c_str(), O_RDONLY);
  if (fd >= 0) {
    ok = fsync(fd) == 0 && ok;
    close(fd);
  }
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return make_error("db_purge: cannot write archive " + path);
  }
  return Status::success();
}

}  // namespace

Result<PurgeSummary> purge_finished(Database& db, const PurgeOptions& options, int64_t now) {
  PurgeSummary summary;
  for (;;) {
    auto candidates = fetch_purge_candidates(db, now - options.min_age_seconds, options.batch);
    if (candidates.empty()) return summary;
    // One archive per assimilation day within the batch.
    std::map<std::string, std::vector<const PurgeCandidate*>> by_day;
    for (const auto& c : candidates) by_day[day_of(c.assimilated_time)].push_back(&c);
    for (const auto& [day, group] : by_day) {
      std::string dir = options.archive_dir + "/" + day;
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) return make_error("db_purge: cannot create " + dir + ": " + ec.message());
      std::ostringstream xml;
      for (const auto* c : group) write_workunit(xml, *c);
      std::string path = dir + "/wu_" + std::to_string(group.front()->workunit.id) + "_" +
                         std::to_string(group.back()->workunit.id) + ".xml.gz";
      if (Status written = write_gzip_atomically(path, xml.str()); !written.ok()) return make_error(written.error());
      ++summary.files;
    }
    std::vector<int64_t> ids;
    for (const auto& c : candidates) {
      ids.push_back(c.workunit.id);
      summary.results += static_cast<int64_t>(c.results.size());
    }
    summary.workunits += db.transaction([&](Database& d) { return delete_purged(d, ids); });
  }
}

Result<std::string> read_archive(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return make_error("cannot open archive " + path);
  std::string text;
  char buffer[1 << 15];
  int n = 0;
  while ((n = gzread(gz, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  gzclose(gz);
  if (n < 0) return make_error("corrupt archive " + path);
  return text;
}

}  // namespace tharsis
