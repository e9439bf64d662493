// One operand job as the operand app runs it in its slot directory: read the spec (open
// name "spec"), read each input .npy by its open name, run the steps, write the output
// .npy under the spec's output name. Open names may be plain files or BOINC's soft-link
// files ("<soft_link>path</soft_link>", path relative to the slot), as the stock client
// lays them out.
#pragma once

#include <functional>
#include <string>

#include "lib/result.h"

namespace tharsis::operand {

inline constexpr const char* kSpecOpenName = "spec";

// The file an open name stands for in `slot_dir`.
std::string resolve_open_name(const std::string& slot_dir, const std::string& name);

// Maps an open name to the file to read or write (BOINC's API offers its own).
using OpenNameResolver = std::function<std::string(const std::string& open_name)>;

// Runs the job; an error says which file or step was wrong (the app exits non-zero with it).
Status run_operand_job(const OpenNameResolver& resolve);
// The same with open names resolved in `slot_dir` by resolve_open_name.
Status run_operand_job(const std::string& slot_dir);

}  // namespace tharsis::operand
