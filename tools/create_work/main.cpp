// create_work: submit plain jobs (BOINC's create_work, in spirit).
//   create_work --project_dir P --app NAME --wu_name N --input PATH[=OPEN_NAME]... [params]
//   create_work --project_dir P --app NAME --bulk FILE [params]
// A bulk file has one job per line: "<wu_name> <input path>[=<open name>] ..."; '#' starts
// a comment. Inputs are staged into download/ under "<wu_name>_<basename>" (or, with
// --shared, under their basename, so jobs naming the same file share one copy).
#include <boost/program_options.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "db/app_store.h"
#include "lib/config/project_config.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

Result<InputFile> input_from(const std::string& spec, const std::string& wu_name, bool shared, int index) {
  std::string path = spec, open_name = index == 0 ? "in" : "in" + std::to_string(index);
  if (auto eq = spec.find('='); eq != std::string::npos) {
    path = spec.substr(0, eq);
    open_name = spec.substr(eq + 1);
  }
  auto content = read_text_file(path);
  if (!content.ok()) return make_error(content.error());
  std::string base = std::filesystem::path(path).filename().string();
  return InputFile{shared ? base : wu_name + "_" + base, open_name, *content, false};
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("create_work --app NAME (--wu_name N --input F... | --bulk FILE)");
  JobSpec base;
  int outputs = 1;
  options.add_options()("app", po::value<std::string>()->required(), "app name")(
      "wu_name", po::value<std::string>(), "workunit name (single job)")(
      "input", po::value<std::vector<std::string>>(), "input file PATH[=OPEN_NAME] (single job)")(
      "bulk", po::value<std::string>(), "file with one job per line")(
      "shared", "stage inputs under their own names (shared between jobs)")(
      "min_quorum", po::value(&base.min_quorum)->default_value(1), "")(
      "target_nresults", po::value(&base.target_nresults)->default_value(1), "")(
      "max_error_results", po::value(&base.max_error_results)->default_value(3), "")(
      "max_total_results", po::value(&base.max_total_results)->default_value(10), "")(
      "max_success_results", po::value(&base.max_success_results)->default_value(6), "")(
      "delay_bound", po::value(&base.delay_bound)->default_value(86400), "seconds")(
      "rsc_fpops_est", po::value(&base.rsc_fpops_est)->default_value(1e9), "")(
      "rsc_memory_bound", po::value(&base.rsc_memory_bound)->default_value(1e8), "bytes")(
      "rsc_disk_bound", po::value(&base.rsc_disk_bound)->default_value(1e8), "bytes")(
      "priority", po::value(&base.priority)->default_value(0), "")(
      "command_line", po::value(&base.command_line), "")("outputs", po::value(&outputs)->default_value(1),
                                                         "output files per result");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("create_work", options, argc, argv, vm)) return *exit_code;
  if (vm.count("bulk") == vm.count("wu_name")) {
    std::cerr << "create_work: give either --wu_name with --input, or --bulk\n";
    return 2;
  }
  auto config = load_tool_config("create_work", vm);
  if (!config) return 2;
  bool shared = vm.count("shared") > 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
  if (vm.count("bulk")) {
    std::ifstream in(vm["bulk"].as<std::string>());
    if (!in) {
      std::cerr << "create_work: cannot read " << vm["bulk"].as<std::string>() << "\n";
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::string name, spec;
      if (!(words >> name)) continue;
      std::vector<std::string> specs;
      while (words >> spec) specs.push_back(spec);
      jobs.emplace_back(name, specs);
    }
  } else {
    jobs.emplace_back(vm["wu_name"].as<std::string>(), vm.count("input")
                                                           ? vm["input"].as<std::vector<std::string>>()
                                                           : std::vector<std::string>{});
  }
  try {
    auto db = Database::open(config->db);
    auto app = fetch_app_by_name(*db, vm["app"].as<std::string>());
    if (!app) {
      std::cerr << "create_work: no app named '" << vm["app"].as<std::string>() << "'\n";
      return 1;
    }
    auto templ = write_output_template(*config, app->name + "_out" + std::to_string(outputs) + ".xml",
                                       outputs, config->max_upload_size);
    if (!templ.ok()) {
      std::cerr << templ.error() << "\n";
      return 1;
    }
    // Every job is checked and its inputs staged first; then all go in with one set-based
    // transaction (the path submit_rpc's submit_batch takes): all jobs or none.
    int64_t now = std::time(nullptr);
    std::vector<PreparedWorkunit> prepared;
    prepared.reserve(jobs.size());
    for (const auto& [name, specs] : jobs) {
      JobSpec job = base;
      job.name = name;
      job.appid = app->id;
      job.output_template_file = *templ;
      for (size_t i = 0; i < specs.size(); ++i) {
        auto input = input_from(specs[i], name, shared, static_cast<int>(i));
        if (!input.ok()) {
          std::cerr << "create_work: " << name << ": " << input.error() << "\n";
          return 1;
        }
        job.inputs.push_back(*input);
      }
      auto row = prepare_workunit(*config, job, now);
      if (!row.ok()) {
        std::cerr << row.error() << "\n";
        return 1;
      }
      PreparedWorkunit wu{std::move(*row), {}};
      for (const auto& input : job.inputs) wu.input_names.push_back(input.name);
      prepared.push_back(std::move(wu));
    }
    try {
      // Taken by the insert (record_workunit_inputs_bulk): a file found in download/ before
      // (a shared input) that a file deleter unlinked meanwhile fails the whole batch.
      std::vector<std::string> names;
      for (const auto& wu : prepared) names.insert(names.end(), wu.input_names.begin(), wu.input_names.end());
      auto inserted = db->transaction([&](Database& d) -> Status {
        insert_prepared_workunits(d, prepared);
        if (std::string missing = first_missing_download(*config, names); !missing.empty())
          return make_error("create_work: input file " + missing +
                            " was deleted from download/ meanwhile; "
                            "nothing created");
        return Status::success();
      });
      if (!inserted.ok()) {
        std::cerr << inserted.error() << "\n";
        return 1;
      }
    } catch (const DbError& e) {
      if (!e.duplicate_key()) throw;
      std::cerr << "create_work: a workunit name is in use already; nothing created\n";
      return 1;
    }
    size_t created = prepared.size();
    std::cout << "created " << created << " workunit(s)\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "create_work: " << e.what() << "\n";
    return 1;
  }
}
