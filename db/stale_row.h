// StaleRow: thrown inside a daemon's transaction when a guarded write finds the row no
// longer in the state the rule was planned on; the transaction rolls back whole and the
// unit is left for the next pass (never a partial write).
#pragma once

#include <stdexcept>
#include <string>

namespace tharsis {

class StaleRow : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void require_written(bool written, const std::string& what) {
  if (!written) throw StaleRow(what + " changed meanwhile; left for the next pass");
}

}  // namespace tharsis
