// An operand's output on the server. The canonical output stays in upload/ (under its
// upload name, operand.output_file) while the operand is FINISHED — the file deleter
// leaves a graph operand's canonical output alone until the operand is FREED, FATAL or
// CANCELLED (db/result_store.h) — and each successor that becomes READY gets a copy (a
// hard link where possible) in download/ named "<output_file>.in", listed with md5 and
// size in its workunit like any input. Those download copies are ordinary inputs: the
// file deleter removes each once no live workunit names it, so a successor that finds a
// copy there (staged for a sibling) takes it (record_workunit_inputs, db/file_store.h)
// and checks it is still there before it commits. An uploaded chunk
// (is_uploaded_chunk) is in download/ already under its own name: it is staged as it is,
// marked <no_delete/> so the file deleter leaves it to the sandbox.
#pragma once

#include <string>

#include "db/rows.h"
#include "lib/config/project_config.h"
#include "lib/result.h"
#include "lib/work/create_work.h"

namespace tharsis {

// The output's md5 and size as found in upload/ now (for recording at FINISHED).
struct OutputFacts {
  std::string md5;
  int64_t nbytes = 0;
};
Result<OutputFacts> read_output_facts(const ProjectConfig& config, const std::string& output_file);
// The same for file `name` under `dir` (upload/ or download/) with the project's fan-out.
Result<OutputFacts> read_file_facts(const std::string& dir, const ProjectConfig& config,
                                    const std::string& name);

// Whether the FINISHED operand's output is still in upload/ (an uploaded chunk: in
// download/) with its recorded md5 and size.
bool output_intact(const ProjectConfig& config, const OperandRow& producer);

// Stages the producer's output for a successor as input `input_index`: download/ copy
// (replaced when missing or not matching the recorded md5). Errors when the upload copy
// is missing or corrupt (lost data) or cannot be linked/copied.
Result<StagedInput> stage_operand_output(const ProjectConfig& config, const OperandRow& producer,
                                         int input_index);

std::string staged_input_name(const OperandRow& producer);

}  // namespace tharsis
