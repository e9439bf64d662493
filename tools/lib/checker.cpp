// Implementation of tools/lib/checker.h.
#include "tools/lib/checker.h"

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <set>

#include "daemons/assimilator/lib/results_store.h"
#include "daemons/file_deleter/file_deleter_rules.h"
#include "db/assimilation_store.h"
#include "db/file_store.h"
#include "db/graph_store.h"
#include "db/job_file_store.h"
#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tools/lib/graph_invariants.h"
#include "tools/lib/invariants.h"

namespace tharsis {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

// Only results the server accepted a reply for can have output files to delete; the law
// leaves NO_REPLY, DIDNT_NEED and COULDNT_SEND results' file_delete_state at INIT.
bool may_have_outputs(const ResultRow& r) {
  return r.outcome == Outcome::Success || r.outcome == Outcome::ClientError ||
         r.outcome == Outcome::ValidateError;
}

std::string id_text(const char* what, int64_t id) { return std::string(what) + " " + std::to_string(id); }

// Every regular file under upload/ (fan-out directories included), by its name, with its
// path relative to upload/.
std::multimap<std::string, std::string> list_upload_files(const std::string& upload_dir) {
  namespace fs = std::filesystem;
  std::multimap<std::string, std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(upload_dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;  // a bad entry is skipped, the listing goes on
    if (it.depth() >= 1 && it->is_directory(entry_ec))
      it.disable_recursion_pending();  // upload/<fan-out>/ only
    if (it->is_regular_file(entry_ec)) {
      files.emplace(it->path().filename().string(), fs::relative(it->path(), upload_dir, entry_ec).string());
    }
  }
  return files;
}

// The output name an upload/ file belongs to: itself, or the name of its partial upload.
std::string output_name_of(const std::string& file_name) {
  const std::string suffix = partial_upload_name("");
  if (file_name.size() > suffix.size() && file_name.ends_with(suffix)) {
    return file_name.substr(0, file_name.size() - suffix.size());
  }
  return file_name;
}

class Checker {
 public:
  Checker(Database& db, const ProjectConfig& config, int64_t now, const CheckOptions& options)
      : db_(db),
        config_(config),
        now_(now),
        settled_(options.settled),
        hash_stored_(options.settled || options.hash_stored_outputs) {}

  CheckReport run() {
    // Listed before the snapshot: a file uploaded later is not listed, and one deleted
    // (rightly) after the listing is found gone when confirmed.
    if (settled_) upload_files_ = list_upload_files(config_.upload_dir);
    // One consistent snapshot of the whole database: read piecewise (the session is READ
    // COMMITTED), a live project shows a workunit before a daemon's commit and its results
    // after it — a state that never existed, reported as a violation. The chaos run found
    // that (results VALID "without" a canonical result).
    db_.snapshot_transaction([&](Database&) { check_snapshot(); });
    confirm_missing_files();
    if (settled_) report_orphan_uploads();
    return report_;
  }

 private:
  void check_snapshot() {
    report_ = CheckReport{};
    assimilation_records_.clear();
    seen_done_.clear();
    missing_file_suspects_.clear();
    live_output_names_.clear();
    load_assimilation_records();
    int64_t after = 0;
    for (;;) {
      auto workunits = fetch_workunits_after(db_, after, 500);
      if (workunits.empty()) break;
      auto results = fetch_results_of_workunit_range(db_, workunits.front().id, workunits.back().id);
      std::map<int64_t, std::vector<ResultRow>> by_wu;
      for (auto& r : results) by_wu[r.workunitid].push_back(std::move(r));
      for (const auto& wu : workunits) check_workunit(wu, by_wu[wu.id]);
      after = workunits.back().id;
    }
    check_graphs();
    for (const auto& [wu_id, count] : assimilation_records_) {
      if (!seen_done_.count(wu_id)) {
        add("assimilated_once", id_text("workunit", wu_id) + " has " + std::to_string(count) +
                                    " assimilation record(s) but assimilate_state is not DONE");
      }
    }
    report_.cluster = check_cluster_tasks(db_, config_, report_.violations);
  }

  // A file found missing that the snapshot says is still needed may have been deleted,
  // rightly, after the snapshot. Deletions are final and the states that allow them never
  // go back, so a fresh read of the workunit taken after the file was seen missing
  // decides: if it still says the file is needed, it was needed when it went missing.
  void confirm_missing_files() {
    std::set<int64_t> suspects;
    suspects.swap(missing_file_suspects_);
    confirming_ = true;
    for (int64_t id : suspects) {
      auto wu = fetch_workunit(db_, id);
      if (!wu) continue;
      auto results = fetch_results_of_workunit(db_, id);
      check_input_files(*wu, results);
      for (const auto& r : results) check_output_files(*wu, r);
    }
    confirming_ = false;
  }

  // A missing-file violation: reported when confirming, else held for confirmation.
  void add_missing_file(int64_t wu_id, const std::string& rule, const std::string& message) {
    if (confirming_)
      add(rule, message);
    else
      missing_file_suspects_.insert(wu_id);
  }

  void check_graphs() {
    for (int64_t id : fetch_graph_ids(db_)) {
      GraphSnapshot snapshot;
      auto graph = fetch_graph(db_, id);
      if (!graph) continue;
      snapshot.graph = *graph;
      snapshot.operands = fetch_operands_of_graph(db_, id);
      snapshot.edges = fetch_edges_of_graph(db_, id);
      for (const auto& o : snapshot.operands) {
        if (auto wu = fetch_workunit(db_, o.workunitid)) snapshot.workunits[wu->id] = *wu;
        snapshot.result_counts[o.workunitid] = count_results_of_workunit(db_, o.workunitid);
      }
      for (const auto& v : check_graph_invariants(snapshot, settled_)) report_.violations.push_back(v);
    }
  }

  void add(const std::string& rule, const std::string& message) {
    report_.violations.push_back("[" + rule + "] " + message);
  }

  void load_assimilation_records() { assimilation_records_ = count_assimilations_by_workunit(db_); }

  void check_workunit(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
    ++report_.workunits;
    report_.results += static_cast<int64_t>(results.size());
    for (const auto& v : check_workunit_invariants(wu, results, now_)) add(v.rule, v.message);

    auto records = assimilation_records_.find(wu.id);
    int64_t count = records == assimilation_records_.end() ? 0 : records->second;
    if (wu.assimilate_state == AssimilateState::Done) {
      seen_done_.insert(wu.id);
      if (count != 1) {
        add("assimilated_once", id_text("workunit", wu.id) + " is DONE with " + std::to_string(count) +
                                    " assimilation records, expected exactly 1");
      }
    }
    check_input_files(wu, results);
    for (const auto& r : results) check_output_files(wu, r);
    check_assimilated_outputs(wu, results);
    if (settled_) check_settled(wu, results);
  }

  // The assimilated copy of the canonical outputs (results/<wu>/MANIFEST, written by the
  // default handler) must be what the canonical result reported: a stored file of another
  // size or md5 is a forged or damaged output handed to the project. With hash_stored_,
  // the stored files themselves are hashed too (the MANIFEST could be right and the bytes
  // not). Workunits without a MANIFEST (an error, another handler) are not checked.
  void check_assimilated_outputs(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
    if (wu.assimilate_state != AssimilateState::Done || wu.canonical_resultid == 0) return;
    const ResultRow* canonical = nullptr;
    for (const auto& r : results) {
      if (r.id == wu.canonical_resultid) canonical = &r;
    }
    if (canonical == nullptr) return;  // reported by canonical_is_valid
    const std::string store = config_.project_dir + "/results";
    if (!exists(workunit_store_dir(store, wu.name) + "/MANIFEST")) return;
    auto manifest = read_manifest(store, wu.name);
    if (!manifest.ok())
      return add("assimilated_output_matches_report", id_text("workunit", wu.id) + ": " + manifest.error());
    auto reported = reported_outputs_in(canonical->xml_doc_out);
    if (!reported.ok()) reported = std::vector<ReportedOutput>{};
    for (const auto& stored : *manifest) {
      const ReportedOutput* report = find_reported(*reported, stored.name);
      OutputMatch match = match_reported_output(report, OutputOnDisk{stored.size, stored.md5});
      std::string where =
          id_text("workunit", wu.id) + " (" + wu.name + ") results/" + wu.name + "/MANIFEST: ";
      if (match != OutputMatch::Match) {
        add("assimilated_output_matches_report",
            where + describe_output_match(match, stored.name, report, OutputOnDisk{stored.size, stored.md5}) +
                " (canonical result " + std::to_string(canonical->id) + ")");
        continue;
      }
      if (!hash_stored_) continue;
      OutputVerdict verdict =
          verify_output_file(workunit_store_dir(store, wu.name) + "/" + stored.name, stored.name, report);
      if (verdict.error_number != 0 || verdict.match != OutputMatch::Match) {
        add("assimilated_output_matches_report",
            id_text("workunit", wu.id) + " (" + wu.name + ") stored file " + verdict.message +
                " (canonical result " + std::to_string(canonical->id) + ")");
      }
    }
  }

  // Settled: every file in upload/ (a partial upload included) belongs to a live result —
  // one whose files the file deleter has yet to delete. Names compared in sets: upload/
  // listed once, the live names gathered from the results the snapshot walks anyway.
  void report_orphan_uploads() {
    for (const auto& [name, relative] : upload_files_) {
      if (live_output_names_.count(output_name_of(name)) != 0) continue;
      const std::string path = config_.upload_dir + "/" + relative;
      if (!exists(path)) continue;  // deleted since the listing
      add("no_orphan_uploads", "upload/" + relative + " belongs to no live result" +
                                   (name != output_name_of(name) ? " (an unfinished upload)" : ""));
    }
  }

  void check_input_files(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
    auto inputs = file_infos_in(wu.xml_doc);
    if (!inputs.ok()) return add("readable_xml_doc", id_text("workunit", wu.id) + ": " + inputs.error());
    bool may_still_be_sent_or_run = false;
    for (const auto& r : results) may_still_be_sent_or_run |= r.server_state != ServerState::Over;
    for (const auto& file : *inputs) {
      std::string path = fanout_path(config_.download_dir, file.name, config_.uldl_dir_fanout);
      bool present = exists(path);
      if (may_still_be_sent_or_run && !present) {
        add_missing_file(wu.id, "input_not_deleted_early",
                         id_text("workunit", wu.id) + " input " + file.name +
                             " is missing while results are unsent or in progress");
      }
      if (wu.file_delete_state == FileDeleteState::Done && present && !file.no_delete &&
          !shared_live(file.name, wu.id)) {
        add("nothing_left_behind", id_text("workunit", wu.id) + " input " + file.name +
                                       " still exists after file_delete_state DONE");
      }
    }
  }

  // Still needed: named by another workunit still to run, or held in a submitter's sandbox.
  bool shared_live(const std::string& name, int64_t wu_id) {
    return input_used_by_other_live_workunit(db_, name, wu_id) || held_in_a_sandbox(db_, name);
  }

  void check_output_files(const WorkunitRow& wu, const ResultRow& r) {
    auto outputs = file_infos_in(r.xml_doc_in);
    if (!outputs.ok()) return add("readable_xml_doc", id_text("result", r.id) + ": " + outputs.error());
    // Live: the file deleter has yet to delete its files — marked READY, or never marked
    // while its workunit's files are not deleted yet (they go with the workunit's).
    const bool live =
        r.file_delete_state == FileDeleteState::Ready ||
        (r.file_delete_state == FileDeleteState::Init && wu.file_delete_state != FileDeleteState::Done);
    for (const auto& file : *outputs) {
      if (settled_ && (live || file.no_delete)) live_output_names_.insert(file.name);
      bool present = exists(fanout_path(config_.upload_dir, file.name, config_.uldl_dir_fanout));
      if (r.id == wu.canonical_resultid && wu.assimilate_state != AssimilateState::Done && !present) {
        add_missing_file(wu.id, "canonical_kept_until_assimilated",
                         id_text("result", r.id) + " (canonical of workunit " + std::to_string(wu.id) +
                             ") output " + file.name + " is missing before assimilation");
      }
      if (r.file_delete_state == FileDeleteState::Done && present && !file.no_delete) {
        add("nothing_left_behind",
            id_text("result", r.id) + " output " + file.name + " still exists after file_delete_state DONE");
      }
    }
  }

  void check_settled(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
    if (wu.canonical_resultid == 0 && wu.error_mask == 0) {
      add("eventually_canonical_or_error",
          id_text("workunit", wu.id) + " has neither a canonical result nor an error");
    }
    if (wu.transition_time < kTransitionNever) {
      add("eventually_transition_never", id_text("workunit", wu.id) + " transition_time is " +
                                             std::to_string(wu.transition_time) + ", not never");
    }
    if (wu.assimilate_state != AssimilateState::Done) {
      add("eventually_assimilated", id_text("workunit", wu.id) + " is not assimilated");
    }
    if (wu.file_delete_state != FileDeleteState::Done) {
      add("eventually_files_deleted", id_text("workunit", wu.id) + " input files not deleted");
    }
    for (const auto& r : results) {
      if (r.server_state != ServerState::Over) {
        add("eventually_over", id_text("result", r.id) + " is not OVER");
      } else if (r.file_delete_state != FileDeleteState::Done && may_have_outputs(r)) {
        add("eventually_files_deleted", id_text("result", r.id) + " output files not deleted");
      }
    }
  }

  Database& db_;
  const ProjectConfig& config_;
  int64_t now_;
  bool settled_;
  bool hash_stored_;
  CheckReport report_;
  std::multimap<std::string, std::string> upload_files_;  // settled only
  std::set<std::string> live_output_names_;               // settled only
  std::map<int64_t, int64_t> assimilation_records_;
  std::set<int64_t> seen_done_;
  std::set<int64_t> missing_file_suspects_;
  bool confirming_ = false;
};

}  // namespace

CheckReport check_project(Database& db, const ProjectConfig& config, int64_t now,
                          const CheckOptions& options) {
  return Checker(db, config, now, options).run();
}

CheckReport check_project(Database& db, const ProjectConfig& config, int64_t now, bool require_settled) {
  return check_project(db, config, now, CheckOptions{require_settled, false});
}

}  // namespace tharsis
