// Implementation of daemons/graph_scheduler/lib/output_staging.h.
#include "daemons/graph_scheduler/lib/output_staging.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "daemons/graph_scheduler/graph_scheduler_rules.h"
#include "daemons/graph_scheduler/lib/operand_jobs.h"
#include "lib/crypto/md5.h"
#include "lib/operand/operand_spec.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

// dst gets src's content through dst.tmp + rename: a hard link, or a copy across devices.
Status link_or_copy(const std::string& src, const std::string& dst) {
  std::string tmp = dst + ".tmp";
  unlink(tmp.c_str());
  if (link(src.c_str(), tmp.c_str()) != 0) {
    std::error_code error;
    std::filesystem::copy_file(src, tmp, std::filesystem::copy_options::overwrite_existing, error);
    if (error) return make_error("cannot copy " + src + " to " + tmp + ": " + error.message());
  }
  if (rename(tmp.c_str(), dst.c_str()) != 0) {
    std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    return make_error("cannot rename " + tmp + " to " + dst + ": " + why);
  }
  return Status::success();
}

}  // namespace

std::string staged_input_name(const OperandRow& producer) { return producer.output_file + ".in"; }

Result<OutputFacts> read_file_facts(const std::string& dir, const ProjectConfig& config,
                                    const std::string& name) {
  std::string path = fanout_path(dir, name, config.uldl_dir_fanout);
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return make_error("file " + path + " is missing");
  auto md5 = md5_file_hex(path);
  if (!md5.ok()) return make_error(md5.error());
  return OutputFacts{*md5, static_cast<int64_t>(info.st_size)};
}

Result<OutputFacts> read_output_facts(const ProjectConfig& config, const std::string& output_file) {
  return read_file_facts(config.upload_dir, config, output_file);
}

bool output_intact(const ProjectConfig& config, const OperandRow& producer) {
  if (producer.output_file.empty() || producer.output_md5.empty()) return false;
  auto facts = is_uploaded_chunk(producer)
                   ? read_file_facts(config.download_dir, config, producer.output_file)
                   : read_output_facts(config, producer.output_file);
  return facts.ok() && facts->md5 == producer.output_md5 && facts->nbytes == producer.output_nbytes;
}

Result<StagedInput> stage_operand_output(const ProjectConfig& config, const OperandRow& producer,
                                         int input_index) {
  if (is_uploaded_chunk(producer)) {
    if (!output_intact(config, producer)) {
      return make_error("operand " + std::to_string(producer.id) + " (" + producer.name +
                        "): uploaded chunk " + producer.output_file +
                        " is missing from download/ or fails its checksum");
    }
    return StagedInput{producer.output_file, operand::operand_input_name(static_cast<size_t>(input_index)),
                       producer.output_md5, producer.output_nbytes, /*no_delete=*/true};
  }
  StagedInput staged{staged_input_name(producer),
                     operand::operand_input_name(static_cast<size_t>(input_index)), producer.output_md5,
                     producer.output_nbytes, false};
  auto dst = fanout_path_create(config.download_dir, staged.name, config.uldl_dir_fanout);
  if (!dst.ok()) return make_error(dst.error());
  auto present = md5_file_hex(*dst);
  if (present.ok() && *present == producer.output_md5) return staged;  // already staged by another successor
  if (!output_intact(config, producer)) {
    return make_error("operand " + std::to_string(producer.id) + " (" + producer.name + "): output " +
                      producer.output_file + " is missing or fails its checksum");
  }
  std::string src = fanout_path(config.upload_dir, producer.output_file, config.uldl_dir_fanout);
  if (Status copied = link_or_copy(src, *dst); !copied.ok()) return make_error(copied.error());
  return staged;
}

}  // namespace tharsis
