// db_purge: archive finished workunits and results, then retired batches, to gzip files
// per day, then delete the rows (tools/lib/db_purge.h). Run from cron, e.g. daily.
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "lib/config/project_config.h"
#include "tools/lib/db_purge.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options(
      "db_purge [--project_dir DIR] [--min_age_days D] [--archive_dir DIR]\n"
      "db_purge --read ARCHIVE   (print an archive's rows, tab-separated)");
  double min_age_days = 7;
  options.add_options()("help", "show this help")("project_dir", po::value<std::string>()->default_value("."),
                                                  "project directory (config.xml)")(
      "min_age_days", po::value(&min_age_days)->default_value(7),
      "purge workunits assimilated this long ago")("archive_dir", po::value<std::string>(),
                                                   "where archives go (default <project>/archives)")(
      "read", po::value<std::string>(), "print the rows of this archive (.xml.gz) and purge nothing");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "db_purge: " << e.what() << "\n" << options;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (vm.count("read")) {
    // A workunit archive (wu_*) or a batch archive (batch_*): each reader takes its elements.
    auto records = read_archive_records(vm["read"].as<std::string>());
    auto batches = read_batch_records(vm["read"].as<std::string>());
    if (!records.ok() || !batches.ok()) {
      std::cerr << "db_purge: " << (records.ok() ? batches.error() : records.error()) << "\n";
      return 1;
    }
    if (!records->empty() || batches->empty()) std::cout << render_archive_records(*records);
    if (!batches->empty()) std::cout << render_batch_records(*batches);
    return 0;
  }
  if (min_age_days < 0) {
    std::cerr << "db_purge: --min_age_days expected >= 0, found " << min_age_days << "\n";
    return 2;
  }
  auto config = load_project_config(vm["project_dir"].as<std::string>() + "/config.xml");
  if (!config.ok()) {
    std::cerr << "db_purge: " << config.error() << "\n";
    return 2;
  }
  PurgeOptions purge;
  purge.archive_dir =
      vm.count("archive_dir") ? vm["archive_dir"].as<std::string>() : config->project_dir + "/archives";
  purge.min_age_seconds = static_cast<int64_t>(min_age_days * 86400);
  try {
    auto db = Database::open(config->db);
    auto summary = purge_finished(*db, purge, std::time(nullptr));
    if (!summary.ok()) {
      std::cerr << summary.error() << "\n";
      return 1;
    }
    std::cout << "purged " << summary->workunits << " workunits, " << summary->results << " results and "
              << summary->batches << " retired batches into " << summary->files << " archive file(s) under "
              << purge.archive_dir << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "db_purge: " << e.what() << "\n";
    return 1;
  }
}
