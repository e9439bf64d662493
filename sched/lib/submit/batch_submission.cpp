// Implementation of sched/lib/submit/batch_submission.h.
#include "sched/lib/submit/batch_submission.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <filesystem>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "db/app_store.h"
#include "db/batch_store.h"
#include "db/job_file_store.h"
#include "db/project_speed.h"
#include "db/stale_row.h"
#include "db/submit_grant_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/parallel_for.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "sched/lib/submit/semilocal_fetch.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_plan.h"
#include "sched/lib/submit/submit_reply.h"

namespace tharsis {
namespace {

constexpr size_t kJobsPerChunk = 2000;  // rows built and inserted at a time (bounded memory)

Result<AppRow> app_named(Database& db, const std::string& name) {
  if (name.empty()) return make_error("missing <app_name>");
  auto app = fetch_app_by_name(db, name);
  if (!app) return make_error("app not found: " + name);
  return *app;
}

// The output template the jobs use: the batch's <output_template_filename> from
// templates/, else create_work's default one-output template.
Result<std::string> output_template(const ProjectConfig& config, const BatchDescription& batch,
                                    const std::string& app) {
  if (!batch.output_template_filename.empty()) {
    if (!is_plain_file_name(batch.output_template_filename)) {
      return make_error("output_template_filename must be a plain file name in templates/");
    }
    std::string relative = "templates/" + batch.output_template_filename;
    struct stat info {};
    if (stat((config.project_dir + "/" + relative).c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      return make_error("no output template " + relative);
    }
    return relative;
  }
  return write_output_template(config, app + "_out1.xml", 1, config.max_upload_size);
}

// Input files as the workunits will describe them, staged once per distinct file. Inline
// contents are only planned by stage() (named by their md5); write_inline() then writes
// the new ones with several threads, as creating many small files is dominated by the
// file system's latency per file, not by CPU. A file already in download/ that a job
// reuses is touched: the sandbox cleanup leaves recently touched files alone
// (daemons/file_deleter/lib/batch_cleanup.h), so it cannot remove one while this
// submission is being written.
class InputStager {
 public:
  InputStager(const ProjectConfig& config, const SubmitLimits& limits) : config_(config), limits_(limits) {}

  Result<StagedInput> stage(const SubmitInput& input, const std::string& open_name) {
    switch (input.mode) {
      case InputMode::Remote: {
        std::string md5 = job_file_name(input.md5).substr(3);  // lower case
        return StagedInput{"jf_" + md5, open_name, md5, static_cast<int64_t>(input.nbytes), true, input.url};
      }
      case InputMode::Inline: {
        std::string md5 = md5_hex(input.source);
        std::string name = job_file_name(md5);
        if (inline_names_.insert(name).second) pending_.push_back(&input.source);
        return StagedInput{name, open_name, md5, static_cast<int64_t>(input.source.size()), false, ""};
      }
      case InputMode::LocalStaged:
      case InputMode::Sandbox: {
        auto found = known_.find(input.source);
        if (found == known_.end()) {
          std::string path = fanout_path(config_.download_dir, input.source, config_.uldl_dir_fanout);
          struct stat info {};
          if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
            return make_error(std::string(input_mode_name(input.mode)) + " file '" + input.source +
                              "' is not in download/");
          }
          utimes(path.c_str(), nullptr);
          auto md5 = md5_file_hex(path);
          if (!md5.ok()) return make_error(md5.error());
          found = known_.emplace(input.source, Known{*md5, static_cast<int64_t>(info.st_size)}).first;
        }
        return StagedInput{input.source, open_name, found->second.md5, found->second.nbytes, false, ""};
      }
      case InputMode::Semilocal: {
        auto found = fetched_.find(input.source);
        if (found == fetched_.end()) {
          if (fetched_.size() == limits_.semilocal_max_urls) {
            return make_error("more than " + std::to_string(limits_.semilocal_max_urls) +
                              " distinct semilocal URLs in one request");
          }
          auto fetched = fetch_semilocal(input.source, config_, limits_.semilocal_max_bytes);
          if (!fetched.ok()) return make_error(fetched.error());
          found = fetched_.emplace(input.source, Known{fetched->md5, fetched->nbytes}).first;
        }
        return StagedInput{
            job_file_name(found->second.md5), open_name, found->second.md5, found->second.nbytes, false, ""};
      }
      default:
        return make_error(std::string("input mode ") + input_mode_name(input.mode) + " is not supported");
    }
  }

  // Writes the planned inline files not in download/ yet (content-addressed: a file of
  // that name has that content). The contents must still be alive.
  Status write_inline() {
    Status written = parallel_for_each(pending_.size(), kFileWriterThreads, [&](size_t i) -> Status {
      const std::string& content = *pending_[i];
      auto path =
          fanout_path_create(config_.download_dir, job_file_name(md5_hex(content)), config_.uldl_dir_fanout);
      if (!path.ok()) return make_error(path.error());
      struct stat info {};
      if (stat(path->c_str(), &info) == 0) {
        utimes(path->c_str(), nullptr);  // there already (content-addressed): touched as reused
        return Status::success();
      }
      return write_text_file(*path, content);
    });
    std::vector<const std::string*>().swap(pending_);
    std::unordered_set<std::string>().swap(inline_names_);
    return written;
  }

 private:
  struct Known {
    std::string md5;
    int64_t nbytes = 0;
  };
  const ProjectConfig& config_;
  const SubmitLimits& limits_;
  std::unordered_map<std::string, Known> known_;    // local_staged and sandbox files, by name
  std::unordered_map<std::string, Known> fetched_;  // semilocal files, by URL
  std::unordered_set<std::string> inline_names_;    // inline files planned, by name
  std::vector<const std::string*> pending_;         // their contents, to write
};

// The distinct sandbox files the batch's jobs name.
std::vector<std::string> sandbox_files_used(const BatchDescription& batch) {
  std::unordered_set<std::string> names;
  for (const auto& job : batch.jobs) {
    for (const auto& input : job.inputs) {
      if (uses_sandbox(input)) names.insert(input.source);
    }
  }
  return std::vector<std::string>(names.begin(), names.end());
}

// Every sandbox file of the batch is held by the account; the error names the first job
// and input that uses one it does not hold (whether the file exists for someone else is
// not said).
Status check_sandbox_held(Database& db, int64_t user_id, const std::vector<std::string>& names,
                          const BatchDescription& batch) {
  if (names.empty()) return Status::success();
  auto held = held_job_files(db, user_id, names);
  if (held.size() == names.size()) return Status::success();
  for (size_t j = 0; j < batch.jobs.size(); ++j) {
    for (size_t i = 0; i < batch.jobs[j].inputs.size(); ++i) {
      const SubmitInput& input = batch.jobs[j].inputs[i];
      if (uses_sandbox(input) && !held.count(input.source)) {
        return make_error("job " + std::to_string(j + 1) + ", input " + std::to_string(i + 1) + ": file '" +
                          input.source + "' is not in your sandbox (upload it through job_file.php first)");
      }
    }
  }
  return Status::success();
}

double batch_fpops(const BatchDescription& batch) {
  double total = 0;
  for (const auto& job : batch.jobs) {
    total += job.rsc_fpops_est > 0                ? job.rsc_fpops_est
             : batch.job_params.rsc_fpops_est > 0 ? batch.job_params.rsc_fpops_est
                                                  : kDefaultFpopsEst;
  }
  return total;
}

}  // namespace

Result<std::string> create_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  auto app_name = optional_name(doc, "app_name");
  if (!app_name.ok()) return make_error(app_name.error());
  auto app = app_named(s.db, *app_name);
  if (!app.ok()) return make_error(app.error());
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  auto name = optional_name(doc, "batch_name");
  if (!name.ok()) return make_error(name.error());
  auto expire = optional_number(doc, "expire_time");
  if (!expire.ok()) return make_error(expire.error());
  BatchRow batch;
  batch.user_id = user->id;
  batch.create_time = s.now;
  batch.app_id = app->id;
  batch.expire_time = *expire;
  batch.name =
      !name->empty() ? *name : default_batch_name(app->name, user->id, s.now, std::random_device{}());
  try {
    int64_t id = s.db.transaction([&](Database& d) { return insert_batch(d, batch); });
    std::string out;
    add_field(out, "batch_id", id);
    return out;
  } catch (const DbError& e) {
    if (e.duplicate_key()) return make_error("a batch named '" + batch.name + "' exists already");
    throw;
  }
}

Result<std::string> submit_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  auto description = parse_batch_description(doc, s.limits);
  if (!description.ok()) return make_error(description.error());
  BatchDescription& batch = *description;
  auto app = app_named(s.db, batch.app_name);
  if (!app.ok()) return make_error(app.error());
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  if (batch.jobs.empty()) return make_error("batch has no <job>");
  if (std::string dup = duplicate_job_name(batch.jobs); !dup.empty()) {
    return make_error("job name '" + dup + "' given twice");
  }
  for (size_t j = 0; j < batch.jobs.size(); ++j) {
    const SubmitJob& job = batch.jobs[j];
    if (!job.name.empty() && !is_plain_file_name(job.name)) {
      return make_error("job " + std::to_string(j + 1) + ": name must be letters, digits, '_', '-', '.'");
    }
    for (size_t i = 0; i < job.inputs.size(); ++i) {
      if (Status ok = check_input(job.inputs[i], j + 1, i + 1, s.limits); !ok) return make_error(ok.error());
    }
  }
  doc.release();  // everything needed is in `batch` now: free the request's tree and text
  std::vector<std::string> sandbox_names = sandbox_files_used(batch);
  if (Status held = check_sandbox_held(s.db, user->id, sandbox_names, batch); !held.ok()) {
    return make_error(held.error());
  }
  auto grant = fetch_submit_grant(s.db, user->id);
  if (grant) {
    int64_t in_progress = grant->max_jobs_in_progress > 0 ? count_user_jobs_in_progress(s.db, user->id) : 0;
    if (auto violation =
            jobs_in_progress_violation(*grant, in_progress, static_cast<int64_t>(batch.jobs.size()))) {
      return make_error(*violation);
    }
  }
  auto templ = output_template(s.config, batch, app->name);
  if (!templ.ok()) return make_error(templ.error());

  // Stage every input before the transaction (files are not transactional, and the
  // transaction may be re-run): staged inputs are content-addressed or checked in place.
  InputStager stager(s.config, s.limits);
  std::vector<std::vector<StagedInput>> staged(batch.jobs.size());
  for (size_t j = 0; j < batch.jobs.size(); ++j) {
    for (size_t i = 0; i < batch.jobs[j].inputs.size(); ++i) {
      auto one = stager.stage(batch.jobs[j].inputs[i], input_open_name(i));
      if (!one.ok()) return make_error("job " + std::to_string(j + 1) + ": " + one.error());
      staged[j].push_back(std::move(*one));
    }
  }
  if (Status written = stager.write_inline(); !written.ok()) return make_error(written.error());
  for (auto& job : batch.jobs) {
    for (auto& input : job.inputs) std::string().swap(input.source);  // on disk now
  }

  std::vector<std::string> local_names;  // the distinct staged files in download/ (not the remote ones)
  {
    std::unordered_set<std::string> seen;
    for (const auto& inputs : staged) {
      for (const auto& input : inputs) {
        if (input.url.empty() && seen.insert(input.name).second) local_names.push_back(input.name);
      }
    }
  }

  double credit_estimate = 0;
  BatchRow fresh;
  fresh.user_id = user->id;
  fresh.create_time = s.now;
  fresh.app_id = app->id;
  fresh.name = !batch.batch_name.empty()
                   ? batch.batch_name
                   : default_batch_name(app->name, user->id, s.now, std::random_device{}());
  try {
    // An error returned from here rolls the whole batch back (Database::transaction).
    auto batch_id = s.db.transaction([&](Database& d) -> Result<int64_t> {
      // The limit again, under the grant row's lock: concurrent submissions of one account
      // take turns here, so together they cannot pass it.
      if (grant && grant->max_jobs_in_progress > 0) {
        auto locked = fetch_submit_grant(d, user->id, /*for_update=*/true);
        if (!locked) return make_error("no submit access");
        if (auto violation = jobs_in_progress_violation(*locked, count_user_jobs_in_progress(d, user->id),
                                                        static_cast<int64_t>(batch.jobs.size()))) {
          return make_error(*violation);
        }
      }
      int64_t id = batch.batch_id;
      if (id != 0) {
        auto existing = fetch_batch(d, id, /*for_update=*/true);
        if (!existing) return make_error("no batch " + std::to_string(id));
        if (existing->user_id != user->id) return make_error("not owner of batch");
        if (existing->state != BatchState::Init) return make_error("batch not in init state");
        if (existing->app_id != app->id)
          return make_error("batch " + std::to_string(id) + " is for another app");
      } else {
        try {
          id = insert_batch(d, fresh);
        } catch (const DbError& e) {
          if (e.duplicate_key()) return make_error("a batch named '" + fresh.name + "' exists already");
          throw;
        }
      }
      std::vector<PreparedWorkunit> chunk;
      chunk.reserve(std::min(kJobsPerChunk, batch.jobs.size()));
      for (size_t j = 0; j < batch.jobs.size(); ++j) {
        const SubmitJob& job = batch.jobs[j];
        std::string name = job.name.empty() ? default_job_name(app->name, id, j) : job.name;
        JobSpec spec = job_spec_for(batch, job, app->id, id, name, *templ);
        if (Status ok = check_job_spec(spec); !ok) return make_error(ok.error());
        PreparedWorkunit wu{build_workunit_row(s.config, spec, staged[j], s.now), {}};
        for (const auto& input : staged[j]) {
          if (input.url.empty()) wu.input_names.push_back(input.name);
        }
        chunk.push_back(std::move(wu));
        if (chunk.size() == kJobsPerChunk) {
          insert_prepared_workunits(d, chunk);
          chunk.clear();
        }
      }
      if (!chunk.empty()) insert_prepared_workunits(d, chunk);
      // The inputs are taken now (record_workunit_inputs_bulk): one found in download/
      // before — a reused file — that a file deleter unlinked meanwhile fails the batch.
      if (std::string missing = first_missing_download(s.config, local_names); !missing.empty())
        return make_error("input file " + missing + " was deleted from download/ meanwhile; submit again");
      // The sandbox files stay while the batch does; locked, so the file deleter cannot
      // remove a row between the check above and this commit.
      auto held = held_job_files(d, user->id, sandbox_names, /*lock=*/true);
      if (held.size() != sandbox_names.size()) return make_error("a sandbox file was removed meanwhile");
      std::vector<int64_t> held_ids;
      for (const auto& [name, file_id] : held) held_ids.push_back(file_id);
      associate_batch_files(d, id, held_ids);
      if (!start_batch(d, id, static_cast<int>(batch.jobs.size()), credit_estimate)) {
        return make_error("batch " + std::to_string(id) + " changed state meanwhile");
      }
      return id;
    });
    if (!batch_id.ok()) return make_error(batch_id.error());
    std::string out;
    add_field(out, "batch_id", *batch_id);
    return out;
  } catch (const StaleRow& e) {  // an input a file deleter is unlinking (take_download_files)
    return make_error(std::string(e.what()) + "; submit again");
  } catch (const DbError& e) {
    if (e.duplicate_key()) return make_error("a job name of this batch is used by an existing job");
    throw;
  }
}

Result<std::string> estimate_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  auto description = parse_batch_description(doc, s.limits);
  if (!description.ok()) return make_error(description.error());
  auto app = app_named(s.db, description->app_name);
  if (!app.ok()) return make_error(app.error());
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  double flops = recent_hosts_flops(s.db, s.now - 86400);
  std::string out;
  add_field(out, "seconds", estimate_batch_seconds(batch_fpops(*description), flops));
  return out;
}

Result<std::string> get_templates_operation(SubmitDocument& doc, SubmitSession& s) {
  auto app_name = optional_name(doc, "app_name");
  if (!app_name.ok()) return make_error(app_name.error());
  std::optional<AppRow> app;
  if (!app_name->empty()) {
    auto named = app_named(s.db, *app_name);
    if (!named.ok()) return make_error(named.error());
    app = *named;
  } else {
    auto job_name = optional_name(doc, "job_name");
    if (!job_name.ok()) return make_error(job_name.error());
    if (job_name->empty()) return make_error("expected <app_name> or <job_name>");
    auto wu = fetch_workunit_by_name(s.db, *job_name);
    if (!wu) return make_error("job not found: " + *job_name);
    app = fetch_app(s.db, wu->appid);
    if (!app) return make_error("job's app not found");
  }
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  auto in = read_text_file(s.config.project_dir + "/templates/" + app->name + "_in");
  auto out_template = read_text_file(s.config.project_dir + "/templates/" + app->name + "_out");
  std::string out = "<templates>\n";
  out += in.ok() ? *in : std::string("<input_template>\n<workunit>\n</workunit>\n</input_template>\n");
  if (out_template.ok()) {
    out += *out_template;
  } else {
    out +=
        "<output_template>\n<file_info><name><OUTFILE_0/></name><generated_locally/><upload_when_present/>"
        "</file_info>\n<result>\n<file_ref><file_name><OUTFILE_0/></file_name><open_name>out</open_name>"
        "<copy_file/></file_ref>\n</result>\n</output_template>\n";
  }
  out += "</templates>\n";
  return out;
}

}  // namespace tharsis
