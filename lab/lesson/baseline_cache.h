// lab/lesson/baseline_cache.h: a baseline's figures kept on disk between
// checks. A ratio criterion's baseline (the reference solution, a named
// baseline) is the lesson's own code: it does not change while the student
// edits, yet its prediction at the time size is half a check's work. Kept
// under the cache folder (compile::cache_dir()/baselines), keyed by the
// caller's description of the run and this build's identity
// (compile/cache_file.h), so a rebuilt lab never reads another build's figures.
#pragma once

#include <optional>
#include <string>

#include "lab/lesson/criteria.h"

namespace lab::lesson {

// The figures stored under `key`, or nothing (never stored, unreadable, or
// written by another build).
std::optional<KernelFigures> cached_baseline(const std::string& key);
void store_baseline(const std::string& key, const KernelFigures& figures);

}  // namespace lab::lesson
