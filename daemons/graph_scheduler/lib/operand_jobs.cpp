// Implementation of daemons/graph_scheduler/lib/operand_jobs.h.
#include "daemons/graph_scheduler/lib/operand_jobs.h"

#include "lib/operand/operand_job.h"

namespace tharsis {

std::string operand_workunit_name(int64_t graph_id, int64_t operand_id, int run) {
  return "g" + std::to_string(graph_id) + "_op" + std::to_string(operand_id) + "_r" + std::to_string(run);
}

JobSpec job_parameters_of(const WorkunitRow& wu) {
  JobSpec job;
  job.appid = wu.appid;
  job.output_template_file = wu.result_template_file;
  job.min_quorum = wu.min_quorum;
  job.target_nresults = wu.target_nresults;
  job.max_error_results = wu.max_error_results;
  job.max_total_results = wu.max_total_results;
  job.max_success_results = wu.max_success_results;
  job.delay_bound = wu.delay_bound;
  job.rsc_fpops_est = wu.rsc_fpops_est;
  job.rsc_fpops_bound = wu.rsc_fpops_bound;
  job.rsc_memory_bound = wu.rsc_memory_bound;
  job.rsc_disk_bound = wu.rsc_disk_bound;
  job.priority = wu.priority;
  job.batch = wu.batch;
  job.graph_id = wu.graph_id;
  return job;
}

Result<PreparedWorkunit> prepare_operand_run(const ProjectConfig& config, const OperandRow& operand,
                                             const JobSpec& params, int64_t now) {
  JobSpec job = params;
  job.name = operand_workunit_name(operand.graph_id, operand.id, operand.runs + 1);
  job.inputs = {InputFile{job.name + ".spec", operand::kSpecOpenName, operand.spec, false}};
  job.graph_id = operand.graph_id;
  job.held = true;
  if (Status checked = check_job_spec(job); !checked.ok()) {
    return make_error("operand " + std::to_string(operand.id) + ": " + checked.error());
  }
  WorkunitRow row = build_workunit_row(config, job, {describe_input(job.inputs.front())}, now);
  return PreparedWorkunit{std::move(row), {job.inputs.front().name}};
}

Result<OperandRow> create_operand_run(Database& db, const ProjectConfig& config, const OperandRow& operand,
                                      const JobSpec& params, int64_t now) {
  auto run = prepare_operand_run(config, operand, params, now);
  if (!run.ok()) return make_error(run.error());
  OperandRow next = operand;
  next.runs = operand.runs + 1;
  next.workunitid = insert_prepared_workunit(db, run->row);
  next.state = OperandState::Unscheduled;
  next.state_time = now;
  next.output_file.clear();
  next.output_md5.clear();
  next.output_nbytes = 0;
  next.output_host = 0;
  return next;
}

}  // namespace tharsis
