// Implementation of tools/lib/graph_submit.h.
#include "tools/lib/graph_submit.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include "daemons/graph_scheduler/lib/operand_jobs.h"
#include "db/graph_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/operand/npy.h"
#include "lib/operand/tensor_graph.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

Status check_submission(const GraphSubmission& graph) {
  if (graph.operands.empty()) return make_error("submit_graph: graph '" + graph.name + "' has no operands");
  if (Status named = check_graph_name(graph.name); !named.ok()) return named;
  std::set<std::string> names;
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const auto& o = graph.operands[i];
    if (!names.insert(o.name).second)
      return make_error("submit_graph: duplicate operand name '" + o.name + "'");
    for (int input : o.inputs) {
      if (input < 0 || static_cast<size_t>(input) >= i) {
        return make_error("submit_graph: operand '" + o.name + "' (#" + std::to_string(i) +
                          ") reads input #" + std::to_string(input) + ", expected an earlier operand");
      }
    }
  }
  return Status::success();
}

// The facts of each distinct uploaded chunk: present in download/, content matching the
// md5 its name states, a .npy of the shape its operands expect.
struct UploadFacts {
  std::string md5;
  int64_t nbytes = 0;
};
Result<std::map<std::string, UploadFacts>> check_uploads(const ProjectConfig& config,
                                                         const GraphSubmission& graph) {
  std::map<std::string, UploadFacts> facts;
  for (const auto& o : graph.operands) {
    if (o.input_file.empty()) continue;
    const std::string where = "submit_graph: operand '" + o.name + "': uploaded chunk " + o.input_file;
    if (!operand::is_uploaded_chunk_name(o.input_file)) return make_error(where + ": not a jf_<md5> name");
    if (!o.inputs.empty()) return make_error(where + ": an uploaded chunk has no inputs");
    const std::string path = fanout_path(config.download_dir, o.input_file, config.uldl_dir_fanout);
    auto shape = operand::read_npy_shape(path);
    if (!shape.ok()) {
      return make_error(where + (access(path.c_str(), F_OK) != 0 ? " is not in download/ (upload it first)"
                                                                 : ": " + shape.error()));
    }
    if (*shape != o.input_shape) {
      return make_error(where + " has shape " + operand::shape_text(*shape) + ", the graph expects " +
                        operand::shape_text(o.input_shape));
    }
    if (facts.count(o.input_file)) continue;
    auto md5 = md5_file_hex(path);
    if (!md5.ok()) return make_error(where + ": " + md5.error());
    if (*md5 != o.input_file.substr(3)) return make_error(where + ": its content has md5 " + *md5);
    struct stat info {};
    stat(path.c_str(), &info);
    facts[o.input_file] = UploadFacts{*md5, static_cast<int64_t>(info.st_size)};
  }
  return facts;
}

// The operand row of `o` (no id yet): UNSCHEDULED, or FINISHED from the start when it is
// an uploaded chunk (its output is the uploaded file).
OperandRow operand_row(const GraphSubmission& graph, const OperandSubmission& o, int64_t graph_id,
                       const std::map<std::string, UploadFacts>& uploads, int64_t now) {
  OperandRow operand;
  operand.graph_id = graph_id;
  operand.name = o.name;
  operand.state_time = now;
  operand.depth = o.depth;
  operand.priority = o.priority;
  operand.output_bytes = o.output_bytes;
  operand.result_chunk = o.result_chunk;
  operand.spec = o.spec;
  if (!o.input_file.empty()) {
    const UploadFacts& file = uploads.at(o.input_file);
    operand.state = OperandState::Finished;
    operand.output_file = o.input_file;
    operand.output_md5 = file.md5;
    operand.output_nbytes = file.nbytes;
    return operand;
  }
  operand.preferred_host = o.preferred_host;
  operand.preferred_until = o.preferred_host != 0 ? now + graph.prefer_seconds : 0;
  return operand;
}

}  // namespace

Status check_graph_name(const std::string& name) {
  if (name.empty() || name.size() > 200) {
    return make_error("submit_graph: expected a graph name of 1..200 characters, found " +
                      std::to_string(name.size()));
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return make_error("submit_graph: unsafe graph name '" + name + "' (letters, digits, _ - . only)");
    }
  }
  return Status::success();
}

Result<int64_t> submit_graph(Database& db, const ProjectConfig& config, const GraphSubmission& graph,
                             int64_t now) {
  if (Status ok = check_submission(graph); !ok.ok()) return make_error(ok.error());
  auto uploads = check_uploads(config, graph);
  if (!uploads.ok()) return make_error(uploads.error());
  try {
    return db.transaction([&](Database& d) -> Result<int64_t> {
      GraphRow row;
      row.create_time = now;
      row.name = graph.name;
      row.expression = graph.expression;
      row.result_path = graph.result_path;
      row.user_id = graph.user_id;
      const int64_t graph_id = insert_graph(d, row);
      // Set-based: the operands, then their first runs, then the edges, each in a few
      // multi-row statements, not a round trip per operand and per edge.
      std::vector<OperandRow> operands;
      operands.reserve(graph.operands.size());
      for (const auto& o : graph.operands) operands.push_back(operand_row(graph, o, graph_id, *uploads, now));
      insert_operands_bulk(d, operands);
      auto id_of = fetch_operand_ids(d, graph_id);
      std::vector<const OperandRow*> computed;  // the operands that get a job (not uploaded chunks)
      for (auto& operand : operands) {
        operand.id = id_of.at(operand.name);
        if (operand.state != OperandState::Finished) computed.push_back(&operand);
      }
      // Held runs: no file is written here (each spec is written when its operand is READY).
      std::vector<PreparedWorkunit> runs;
      runs.reserve(computed.size());
      for (const OperandRow* operand : computed) {
        JobSpec job = graph.job;
        job.priority = operand->priority;
        auto run = prepare_operand_run(config, *operand, job, now);
        if (!run.ok()) return make_error("submit_graph: " + run.error());  // rolls the graph back
        runs.push_back(std::move(*run));
      }
      insert_prepared_workunits(d, runs);
      auto workunit_of = fetch_workunit_ids_of_graph(d, graph_id);
      std::vector<std::pair<int64_t, int64_t>> first_runs;
      for (const OperandRow* o : computed) {
        first_runs.emplace_back(o->id, workunit_of.at(operand_workunit_name(graph_id, o->id, 1)));
      }
      if (record_first_runs(d, first_runs) != static_cast<int64_t>(first_runs.size()))
        return make_error("submit_graph: graph " + std::to_string(graph_id) +
                          ": first runs not all recorded");
      std::vector<DependencyEdge> edges;
      for (size_t i = 0; i < graph.operands.size(); ++i) {
        const auto& inputs = graph.operands[i].inputs;
        for (size_t k = 0; k < inputs.size(); ++k)
          edges.push_back({operands[static_cast<size_t>(inputs[k])].id, operands[i].id, static_cast<int>(k)});
      }
      insert_dependencies_bulk(d, edges);
      return graph_id;
    });
  } catch (const DbError& e) {
    if (e.duplicate_key())
      return make_error("submit_graph: a graph named '" + graph.name + "' exists already");
    throw;
  }
}

}  // namespace tharsis
