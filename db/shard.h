// Shard: which rows a daemon instance started with `--mod n --mod_id id` owns — those with
// row id % n == id. Several instances (even on several hosts) never touch the same row.
#pragma once

namespace tharsis {

struct Shard {
  int n = 1;
  int id = 0;
};

}  // namespace tharsis
