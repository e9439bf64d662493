// Implementation of tools/lib/graph_submit.h.
#include "tools/lib/graph_submit.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include "daemons/graph_scheduler/lib/operand_jobs.h"
#include "db/graph_store.h"
#include "db/mariadb_errors.h"
#include "db/stale_row.h"
#include "lib/crypto/md5.h"
#include "lib/fanout.h"
#include "lib/operand/npy.h"
#include "lib/operand/tensor_graph.h"

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
      int64_t graph_id = insert_graph(d, row);
      std::vector<int64_t> ids;
      for (const auto& o : graph.operands) {
        OperandRow operand;
        operand.graph_id = graph_id;
        operand.name = o.name;
        operand.state_time = now;
        operand.depth = o.depth;
        operand.priority = o.priority;
        operand.output_bytes = o.output_bytes;
        operand.preferred_host = o.preferred_host;
        operand.preferred_until = o.preferred_host != 0 ? now + graph.prefer_seconds : 0;
        operand.result_chunk = o.result_chunk;
        operand.spec = o.spec;
        if (!o.input_file.empty()) {
          // Done from the start: its output is the uploaded file.
          const UploadFacts& file = uploads->at(o.input_file);
          operand.state = OperandState::Finished;
          operand.output_file = o.input_file;
          operand.output_md5 = file.md5;
          operand.output_nbytes = file.nbytes;
          operand.preferred_host = 0;
          operand.preferred_until = 0;
          operand.id = insert_operand(d, operand);
          ids.push_back(operand.id);
          continue;
        }
        operand.id = insert_operand(d, operand);
        JobSpec job = graph.job;
        job.priority = o.priority;
        auto first_run = create_operand_run(d, config, operand, job, now);
        if (!first_run.ok()) throw std::runtime_error(first_run.error());
        require_written(update_operand_guarded(d, operand, *first_run), "operand " + operand.name);
        ids.push_back(operand.id);
      }
      for (size_t i = 0; i < graph.operands.size(); ++i) {
        const auto& inputs = graph.operands[i].inputs;
        for (size_t k = 0; k < inputs.size(); ++k) {
          insert_dependency(d, ids[static_cast<size_t>(inputs[k])], ids[i], static_cast<int>(k));
        }
      }
      return graph_id;
    });
  } catch (const DbError& e) {
    if (e.code() == mariadb_error::kDupEntry)
      return make_error("submit_graph: a graph named '" + graph.name + "' exists already");
    throw;
  } catch (const std::runtime_error& e) {
    return make_error(std::string("submit_graph: ") + e.what());
  }
}

}  // namespace tharsis
