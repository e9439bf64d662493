#include "lib/operand/operand_job.h"

#include <sys/stat.h>

#include "lib/operand/kernels.h"
#include "lib/operand/npy.h"
#include "lib/operand/operand_spec.h"
#include "lib/text_file.h"

namespace tharsis::operand {

namespace {

constexpr std::string_view kLinkOpen = "<soft_link>";
constexpr std::string_view kLinkClose = "</soft_link>";
// A soft-link file is a one-line XML element; anything larger is data.
constexpr off_t kMaxLinkFileBytes = 4096;

}  // namespace

std::string resolve_open_name(const std::string& slot_dir, const std::string& name) {
  const std::string path = slot_dir + "/" + name;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_size > kMaxLinkFileBytes)
    return path;
  auto text = read_text_file(path);
  if (!text.ok() || text->rfind(kLinkOpen, 0) != 0) return path;
  const size_t close = text->find(kLinkClose);
  if (close == std::string::npos) return path;
  const std::string target = text->substr(kLinkOpen.size(), close - kLinkOpen.size());
  return target.empty() || target[0] == '/' ? target : slot_dir + "/" + target;
}

Status run_operand_job(const std::string& slot_dir) {
  return run_operand_job([&](const std::string& name) { return resolve_open_name(slot_dir, name); });
}

Status run_operand_job(const OpenNameResolver& resolve) {
  auto spec_text = read_text_file(resolve(kSpecOpenName));
  if (!spec_text.ok()) return Error{spec_text.error()};
  auto spec = parse_operand_spec(*spec_text);
  if (!spec.ok()) return Error{spec.error()};
  std::vector<NdArray> inputs;
  for (const std::string& name : spec->inputs) {
    auto array = read_npy(resolve(name));
    if (!array.ok()) return make_error("input " + name + ": " + array.error());
    inputs.push_back(std::move(*array));
  }
  std::vector<const NdArray*> pointers;
  for (const NdArray& array : inputs) pointers.push_back(&array);
  auto output = run_steps(spec->steps, pointers);
  if (!output.ok()) return Error{output.error()};
  return write_npy(resolve(spec->output), *output);
}

}  // namespace tharsis::operand
