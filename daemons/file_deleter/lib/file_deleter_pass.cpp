// Implementation of daemons/file_deleter/lib/file_deleter_pass.h.
#include "daemons/file_deleter/lib/file_deleter_pass.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include "daemons/file_deleter/file_deleter_rules.h"
#include "daemons/file_deleter/lib/batch_cleanup.h"
#include "db/file_store.h"
#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/daemon/cursor_read.h"
#include "lib/log.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

namespace tharsis {
namespace {

FileAttempt unlink_one(const std::string& label, const std::string& path) {
  FileAttempt attempt{label, DeleteAttempt::Deleted, ""};
  if (unlink(path.c_str()) != 0) {
    attempt.outcome = errno == ENOENT ? DeleteAttempt::NotFound : DeleteAttempt::Failed;
    attempt.error = std::strerror(errno);
  }
  return attempt;
}

// Unlinks the selection's files under `base`, and their partial uploads (beside each file:
// same fan-out directory), appending one attempt per path to `attempts`. A name's path
// (an md5 of the name) is worked out once for the file and its partial upload.
void unlink_selection(const std::string& base, int fanout, const FileSelection& selection,
                      std::vector<FileAttempt>& attempts) {
  std::vector<std::pair<const std::string*, std::string>> paths;  // few: a row's files
  auto path_of = [&](const std::string& name) -> const std::string& {
    for (const auto& [known, path] : paths) {
      if (*known == name) return path;
    }
    return paths.emplace_back(&name, fanout_path(base, name, fanout)).second;
  };
  paths.reserve(selection.delete_now.size() + selection.partial_uploads.size());
  for (const auto& name : selection.delete_now) attempts.push_back(unlink_one(name, path_of(name)));
  for (const auto& name : selection.partial_uploads)
    attempts.push_back(unlink_one(partial_upload_name(name), path_of(name) + ".partial"));
}

// What differs between a workunit's inputs and a result's outputs.
std::string label_of(const WorkunitRow& wu) { return "workunit " + std::to_string(wu.id); }
std::string label_of(const ResultRow& r) { return "result " + std::to_string(r.id); }
const std::string& doc_of(const WorkunitRow& wu) { return wu.xml_doc; }
const std::string& doc_of(const ResultRow& r) { return r.xml_doc_in; }
int64_t workunit_of(const WorkunitRow& wu) { return wu.id; }
int64_t workunit_of(const ResultRow& r) { return r.workunitid; }
FileSelection select_for(const WorkunitRow& wu, const std::vector<StoredFile>& files,
                         const std::set<std::string>& live) {
  return select_input_files(wu, files, live);
}
FileSelection select_for(const ResultRow& r, const std::vector<StoredFile>& files,
                         const std::set<std::string>& live) {
  return select_output_files(r, files, live);
}
const std::string& dir_for(const WorkunitRow&, const ProjectConfig& config) { return config.download_dir; }
const std::string& dir_for(const ResultRow&, const ProjectConfig& config) { return config.upload_dir; }

// The files named in `xml` (logged and empty when it is malformed), their names added to `all_names`.
std::vector<StoredFile> files_named_in(const std::string& label, const std::string& xml,
                                       std::vector<std::string>& all_names) {
  auto parsed = file_infos_in(xml);
  if (!parsed.ok()) {
    log_error(label, ": ", parsed.error(), "; no files deleted");
    return {};
  }
  for (const auto& f : *parsed) all_names.push_back(f.name);
  return *parsed;
}

void log_retries(const std::vector<std::pair<const FileDeleteFailure*, FileDeleteRetry>>& retries,
                 int64_t now) {
  for (const auto& [f, retry] : retries) {
    log_warning(f->error.empty() ? "files of row " + std::to_string(f->id) : f->error, ": failure ",
                retry.failures, ", next try in ", retry.next_time - now, " s");
  }
}

}  // namespace

template <class Row>
int FileDeleterPass::delete_chunk(Database& db, const std::vector<Row>& rows, int64_t now) {
  constexpr bool kWorkunits = std::is_same_v<Row, WorkunitRow>;
  int recorded_before = 0;  // the previous chunk's rows, recorded with this chunk's marks
  std::vector<std::vector<StoredFile>> files(rows.size());
  std::vector<std::string> all_names;
  for (size_t i = 0; i < rows.size(); ++i)
    files[i] = files_named_in(label_of(rows[i]), doc_of(rows[i]), all_names);
  // With a workunit's inputs go the outputs of its results the law never marks for
  // deletion (select_abandoned_outputs): read for the whole chunk in one statement.
  std::map<int64_t, std::vector<std::pair<ResultRow, std::vector<StoredFile>>>> abandoned;
  if constexpr (kWorkunits) {
    std::vector<int64_t> ids;
    for (const Row& row : rows) ids.push_back(row.id);
    for (auto& r : fetch_unmarked_over_results(db, ids)) {
      auto outputs = files_named_in(label_of(r), r.xml_doc_in, all_names);
      abandoned[r.workunitid].emplace_back(std::move(r), std::move(outputs));
    }
  }
  // Read before any unlink: a file a live workunit names is never deleted.
  FileUsers users = live_file_users(db, all_names);
  std::vector<FileSelection> selections(rows.size());
  auto select_all = [&] {
    for (size_t i = 0; i < rows.size(); ++i)
      selections[i] = select_for(rows[i], files[i], live_references(workunit_of(rows[i]), files[i], users));
  };
  select_all();
  // An input in download/ may be taken by a new workunit meanwhile (a graph successor
  // reusing a staged input, create_work reusing a file): the names to unlink are marked
  // deleting first — waiting for every transaction taking one of them — and their users
  // read again; from the commit on nobody takes them, so the unlinks come after it. A
  // crash before the unlinks leaves the rows READY and the marks: the next pass repeats.
  // A name another deleter marked first (a READY workunit of another shard names it too)
  // is left to that deleter: it unlinks the file and drops the mark with its row's DONE.
  std::vector<std::string> marked;
  if constexpr (kWorkunits) {
    std::set<int64_t> chunk_ids;
    for (const Row& row : rows) chunk_ids.insert(row.id);
    auto selected = [&] {  // each name to unlink, with the first row that unlinks it
      std::map<std::string, int64_t> owners;
      for (size_t i = 0; i < rows.size(); ++i) {
        for (const auto& name : selections[i].delete_now) owners.emplace(name, rows[i].id);
      }
      return owners;
    };
    if (auto first = selected(); !first.empty()) {
      std::vector<std::pair<const FileDeleteFailure*, FileDeleteRetry>> retries;
      int previous = 0;
      db.transaction([&](Database& d) {
        // The previous chunk's record first (its marks dropped before these are taken):
        // one commit for both.
        previous = 0;
        retries.clear();
        record(d, FileOwner::Workunit, workunits_left_, now, previous, retries);
        std::set<std::string> marks, foreign;
        std::map<std::string, int64_t> still;
        // Usually once; again if a file whose last user finished meanwhile joins the selection.
        for (std::map<std::string, int64_t> more = first; !more.empty();) {
          for (const auto& [name, owner] : mark_downloads_deleting(d, more)) {
            marks.insert(name);
            if (!chunk_ids.count(owner)) foreign.insert(name);
          }
          users = live_file_users(d, all_names);
          select_all();
          still = selected();
          more.clear();
          for (const auto& [name, owner] : still) {
            if (!marks.count(name)) more.emplace(name, owner);
          }
        }
        std::vector<std::string> kept;
        for (const auto& name : marks) {
          if (!still.count(name) && !foreign.count(name)) kept.push_back(name);
        }
        forget_downloads_deleting(d, kept);
        marked.clear();
        for (const auto& [name, owner] : still) {
          if (!foreign.count(name)) marked.push_back(name);
        }
        for (auto& selection : selections) {
          std::erase_if(selection.delete_now,
                        [&](const std::string& name) { return foreign.count(name) > 0; });
        }
      });
      log_retries(retries, now);
      recorded_before = previous;
      workunits_left_ = Unrecorded{};
    }
  }
  Unrecorded unrecorded;
  unrecorded.marked = marked;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const FileSelection& selection = selections[i];
    if (!selection.eligible) continue;  // no longer READY: nothing to do
    std::vector<FileAttempt> attempts;
    unlink_selection(dir_for(row, config_), config_.uldl_dir_fanout, selection, attempts);
    if constexpr (kWorkunits) {
      for (const auto& [result, outputs] : abandoned[row.id]) {
        FileSelection left =
            select_abandoned_outputs(row, result, outputs, live_references(row.id, outputs, users));
        unlink_selection(config_.upload_dir, config_.uldl_dir_fanout, left, attempts);
      }
    }
    FileDeletionDecision decision = decide_after_deletion(label_of(row), attempts);
    for (const auto& message : decision.messages) log_error(message);
    if (decision.retry) {
      unrecorded.failed.push_back(
          FileDeleteFailure{row.id, decision.messages.empty() ? "" : decision.messages.front()});
    } else {
      unrecorded.done.push_back(row.id);
    }
  }
  if constexpr (kWorkunits) {
    // Recorded with the next chunk's marks, or by record_left(); the marks keep the
    // unlinked names from takers until then, and a crash leaves the rows READY.
    auto append = [](auto& to, auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(workunits_left_.marked, unrecorded.marked);
    append(workunits_left_.done, unrecorded.done);
    append(workunits_left_.failed, unrecorded.failed);
    return recorded_before;
  } else {
    return record_alone(db, FileOwner::Result, unrecorded, now);
  }
}

void FileDeleterPass::record(Database& d, FileOwner owner, const Unrecorded& left, int64_t now, int& recorded,
                             std::vector<std::pair<const FileDeleteFailure*, FileDeleteRetry>>& retries) {
  if (left.empty()) return;
  // The marks go with the rows' DONE, in one transaction: a file that failed to go stays
  // for its users until the row's retry marks it again.
  forget_downloads_deleting(d, left.marked);
  recorded += static_cast<int>(mark_files_deleted(d, owner, left.done));
  if (left.failed.empty()) return;
  std::vector<int64_t> ids;
  for (const auto& f : left.failed) ids.push_back(f.id);
  auto before = file_delete_failures(d, owner, ids);
  for (const auto& f : left.failed) {
    const FileDeleteRetry retry = next_file_delete_retry(before[f.id], now);
    record_file_delete_failure(d, owner, f, retry.failures, retry.next_time);
    retries.emplace_back(&f, retry);
  }
}

int FileDeleterPass::record_alone(Database& db, FileOwner owner, const Unrecorded& left, int64_t now) {
  if (left.empty()) return 0;
  int recorded = 0;
  std::vector<std::pair<const FileDeleteFailure*, FileDeleteRetry>> retries;
  db.transaction([&](Database& d) {
    recorded = 0;
    retries.clear();
    record(d, owner, left, now, recorded, retries);
  });
  log_retries(retries, now);
  return recorded;
}

int FileDeleterPass::record_left(Database& db, int64_t now) {
  int recorded = record_alone(db, FileOwner::Workunit, workunits_left_, now);
  workunits_left_ = Unrecorded{};
  return recorded;
}

int FileDeleterPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  const size_t per_commit = static_cast<size_t>(std::max(1, context.options.units_per_commit));
  auto in_chunks = [&](const auto& ready) {
    using Row = typename std::decay_t<decltype(ready)>::value_type;
    int recorded = 0;
    std::vector<Row> chunk;
    for (const Row& row : ready) {
      chunk.push_back(row);
      if (chunk.size() == per_commit) {
        recorded += delete_chunk(db, chunk, now);
        chunk.clear();
      }
    }
    if (!chunk.empty()) recorded += delete_chunk(db, chunk, now);
    return recorded;
  };
  int done =
      in_chunks(read_from_cursor(workunit_cursor_, context.batch, [&](int64_t after, int64_t upto, int n) {
        return fetch_file_delete_ready_workunits(db, context.shard, n, now, after, upto);
      }));
  done += record_left(db, now);
  done += in_chunks(read_from_cursor(result_cursor_, context.batch, [&](int64_t after, int64_t upto, int n) {
    return fetch_file_delete_ready_results(db, context.shard, n, now, after, upto);
  }));
  if (context.shard.id == 0)
    done += static_cast<int>(clean_batches_and_sandboxes(db, config_, now, context.batch).total());
  return done;
}

}  // namespace tharsis
