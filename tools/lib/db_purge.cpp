// Implementation of tools/lib/db_purge.h.
#include "tools/lib/db_purge.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "db/batch_store.h"
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
  out << "<workunit>\n  <id>" << w.id << "</id>\n  <name>" << xml_escape(w.name) << "</name>\n  <appid>"
      << w.appid << "</appid>\n  <create_time>" << w.create_time << "</create_time>\n  <canonical_resultid>"
      << w.canonical_resultid << "</canonical_resultid>\n  <error_mask>" << w.error_mask
      << "</error_mask>\n  <canonical_credit>" << w.canonical_credit
      << "</canonical_credit>\n  <assimilated_time>" << c.assimilated_time
      << "</assimilated_time>\n  <xml_doc>" << xml_escape(w.xml_doc) << "</xml_doc>\n";
  for (const auto& r : c.results) {
    out << "  <result>\n    <id>" << r.id << "</id>\n    <name>" << xml_escape(r.name)
        << "</name>\n    <hostid>" << r.hostid << "</hostid>\n    <server_state>" << code(r.server_state)
        << "</server_state>\n    <outcome>" << code(r.outcome) << "</outcome>\n    <validate_state>"
        << code(r.validate_state) << "</validate_state>\n    <exit_status>" << r.exit_status
        << "</exit_status>\n    <cpu_time>" << r.cpu_time << "</cpu_time>\n    <granted_credit>"
        << r.granted_credit << "</granted_credit>\n    <sent_time>" << r.sent_time
        << "</sent_time>\n    <received_time>" << r.received_time << "</received_time>\n  </result>\n";
  }
  out << "</workunit>\n";
}

void write_batch(std::ostringstream& out, const BatchRow& b) {
  out << "<batch>\n  <id>" << b.id << "</id>\n  <name>" << xml_escape(b.name) << "</name>\n  <user_id>"
      << b.user_id << "</user_id>\n  <app_id>" << b.app_id << "</app_id>\n  <create_time>" << b.create_time
      << "</create_time>\n  <completion_time>" << b.completion_time << "</completion_time>\n  <expire_time>"
      << b.expire_time << "</expire_time>\n  <njobs>" << b.njobs << "</njobs>\n  <njobs_done>" << b.njobs_done
      << "</njobs_done>\n  <nerror_jobs>" << b.nerror_jobs << "</nerror_jobs>\n  <credit_canonical>"
      << b.credit_canonical << "</credit_canonical>\n  <state>" << static_cast<int>(b.state)
      << "</state>\n</batch>\n";
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

// Archives and deletes the retired batches that qualify (after their workunits went).
Status purge_batches(Database& db, const PurgeOptions& options, int64_t now, PurgeSummary& summary) {
  for (;;) {
    auto batches = fetch_purgeable_batches(db, options.batch);
    if (batches.empty()) return Status::success();
    std::string dir = options.archive_dir + "/" + day_of(now);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return make_error("db_purge: cannot create " + dir + ": " + ec.message());
    std::ostringstream xml;
    xml.precision(std::numeric_limits<double>::max_digits10);
    std::vector<int64_t> ids;
    for (const auto& b : batches) {
      write_batch(xml, b);
      ids.push_back(b.id);
    }
    std::string path =
        dir + "/batch_" + std::to_string(ids.front()) + "_" + std::to_string(ids.back()) + ".xml.gz";
    if (Status written = write_gzip_atomically(path, xml.str()); !written.ok()) return written;
    ++summary.files;
    summary.batches += db.transaction([&](Database& d) { return delete_batches(d, ids); });
  }
}

}  // namespace

Result<PurgeSummary> purge_finished(Database& db, const PurgeOptions& options, int64_t now) {
  PurgeSummary summary;
  for (;;) {
    auto candidates = fetch_purge_candidates(db, now - options.min_age_seconds, options.batch);
    if (candidates.empty()) {
      if (Status batches = purge_batches(db, options, now, summary); !batches.ok())
        return make_error(batches.error());
      return summary;
    }
    // One archive per assimilation day within the batch.
    std::map<std::string, std::vector<const PurgeCandidate*>> by_day;
    for (const auto& c : candidates) by_day[day_of(c.assimilated_time)].push_back(&c);
    for (const auto& [day, group] : by_day) {
      std::string dir = options.archive_dir + "/" + day;
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) return make_error("db_purge: cannot create " + dir + ": " + ec.message());
      std::ostringstream xml;
      xml.precision(std::numeric_limits<double>::max_digits10);  // doubles read back exactly
      for (const auto* c : group) write_workunit(xml, *c);
      std::string path = dir + "/wu_" + std::to_string(group.front()->workunit.id) + "_" +
                         std::to_string(group.back()->workunit.id) + ".xml.gz";
      if (Status written = write_gzip_atomically(path, xml.str()); !written.ok())
        return make_error(written.error());
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

namespace {

// The archive's text as one document: it is a sequence of elements, wrapped in <archive>.
Status load_archive_text(pugi::xml_document& doc, const std::string& text) {
  const std::string wrapped = "<archive>" + text + "</archive>";
  pugi::xml_parse_result parsed = doc.load_buffer(wrapped.data(), wrapped.size(), pugi::parse_default);
  if (!parsed) return make_error(std::string("malformed archive: ") + parsed.description());
  return Status::success();
}

// read_archive, then `parse`; an error names the path.
template <class Parse>
auto read_and_parse(const std::string& path, Parse parse) -> decltype(parse(std::string())) {
  auto text = read_archive(path);
  if (!text.ok()) return make_error(text.error());
  auto records = parse(*text);
  if (!records.ok()) return make_error(path + ": " + records.error());
  return records;
}

// The text of child `name` as a number; false when missing or not a number.
template <class T>
bool number_of(const pugi::xml_node& node, const char* name, T& out) {
  pugi::xml_node child = node.child(name);
  if (!child) return false;
  std::istringstream in(child.text().get());
  in >> out;
  return !in.fail();
}

}  // namespace

Result<std::vector<ArchivedWorkunit>> parse_archive(const std::string& text) {
  pugi::xml_document doc;
  if (Status loaded = load_archive_text(doc, text); !loaded.ok()) return make_error(loaded.error());
  std::vector<ArchivedWorkunit> out;
  for (pugi::xml_node w : doc.child("archive").children("workunit")) {
    ArchivedWorkunit wu;
    wu.name = w.child("name").text().get();
    wu.xml_doc = w.child("xml_doc").text().get();
    bool ok = number_of(w, "id", wu.id) && number_of(w, "appid", wu.appid) &&
              number_of(w, "create_time", wu.create_time) &&
              number_of(w, "canonical_resultid", wu.canonical_resultid) &&
              number_of(w, "error_mask", wu.error_mask) &&
              number_of(w, "canonical_credit", wu.canonical_credit) &&
              number_of(w, "assimilated_time", wu.assimilated_time);
    if (!ok) return make_error("malformed archive: workunit '" + wu.name + "' lacks a number");
    for (pugi::xml_node r : w.children("result")) {
      ArchivedResult result;
      result.name = r.child("name").text().get();
      ok = number_of(r, "id", result.id) && number_of(r, "hostid", result.hostid) &&
           number_of(r, "server_state", result.server_state) && number_of(r, "outcome", result.outcome) &&
           number_of(r, "validate_state", result.validate_state) &&
           number_of(r, "exit_status", result.exit_status) && number_of(r, "cpu_time", result.cpu_time) &&
           number_of(r, "granted_credit", result.granted_credit) &&
           number_of(r, "sent_time", result.sent_time) && number_of(r, "received_time", result.received_time);
      if (!ok) return make_error("malformed archive: result '" + result.name + "' lacks a number");
      wu.results.push_back(std::move(result));
    }
    out.push_back(std::move(wu));
  }
  return out;
}

Result<std::vector<ArchivedWorkunit>> read_archive_records(const std::string& path) {
  return read_and_parse(path, parse_archive);
}

std::string render_archive_records(const std::vector<ArchivedWorkunit>& workunits) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10);
  out << "# workunit\tid\tname\tappid\tcreate_time\tcanonical_resultid\terror_mask\tcanonical_credit\t"
         "assimilated_time\n# result\tid\tname\tworkunitid\thostid\tserver_state\toutcome\tvalidate_state\t"
         "exit_status\tcpu_time\tgranted_credit\tsent_time\treceived_time\n";
  for (const auto& w : workunits) {
    out << "workunit\t" << w.id << '\t' << w.name << '\t' << w.appid << '\t' << w.create_time << '\t'
        << w.canonical_resultid << '\t' << w.error_mask << '\t' << w.canonical_credit << '\t'
        << w.assimilated_time << '\n';
    for (const auto& r : w.results) {
      out << "result\t" << r.id << '\t' << r.name << '\t' << w.id << '\t' << r.hostid << '\t'
          << r.server_state << '\t' << r.outcome << '\t' << r.validate_state << '\t' << r.exit_status << '\t'
          << r.cpu_time << '\t' << r.granted_credit << '\t' << r.sent_time << '\t' << r.received_time << '\n';
    }
  }
  return out.str();
}

Result<std::vector<ArchivedBatch>> parse_batch_archive(const std::string& text) {
  pugi::xml_document doc;
  if (Status loaded = load_archive_text(doc, text); !loaded.ok()) return make_error(loaded.error());
  std::vector<ArchivedBatch> out;
  for (pugi::xml_node n : doc.child("archive").children("batch")) {
    ArchivedBatch b;
    b.name = n.child("name").text().get();
    bool ok = number_of(n, "id", b.id) && number_of(n, "user_id", b.user_id) &&
              number_of(n, "app_id", b.app_id) && number_of(n, "create_time", b.create_time) &&
              number_of(n, "completion_time", b.completion_time) &&
              number_of(n, "expire_time", b.expire_time) && number_of(n, "njobs", b.njobs) &&
              number_of(n, "njobs_done", b.njobs_done) && number_of(n, "nerror_jobs", b.nerror_jobs) &&
              number_of(n, "credit_canonical", b.credit_canonical) && number_of(n, "state", b.state);
    if (!ok) return make_error("malformed archive: batch '" + b.name + "' lacks a number");
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::vector<ArchivedBatch>> read_batch_records(const std::string& path) {
  return read_and_parse(path, parse_batch_archive);
}

std::string render_batch_records(const std::vector<ArchivedBatch>& batches) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10);
  out << "# batch\tid\tname\tuser_id\tapp_id\tcreate_time\tcompletion_time\texpire_time\tnjobs\tnjobs_done\t"
         "nerror_jobs\tcredit_canonical\tstate\n";
  for (const auto& b : batches) {
    out << "batch\t" << b.id << '\t' << b.name << '\t' << b.user_id << '\t' << b.app_id << '\t'
        << b.create_time << '\t' << b.completion_time << '\t' << b.expire_time << '\t' << b.njobs << '\t'
        << b.njobs_done << '\t' << b.nerror_jobs << '\t' << b.credit_canonical << '\t' << b.state << '\n';
  }
  return out.str();
}

}  // namespace tharsis
