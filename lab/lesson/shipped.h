// lab/lesson/shipped.h: the lessons' manifests as the lab shipped them.
//
// A lessons folder is the student's to edit, lesson.toml included; an
// exercise's limits are not. The build embeds every shipped lesson.toml
// (cmake/embed_manifests.cmake), and the check judges an exercise of a
// shipped lesson by the shipped definition, reporting a folder whose copy
// differs instead of obeying it (issue 26).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lab/lesson/manifest.h"

namespace lab::lesson {

struct ShippedManifest {
  const char* id;    // the lesson's folder name, "04-shared-memory-tiling"
  const char* toml;  // its lesson.toml as shipped
};
const std::vector<ShippedManifest>& shipped_manifests();

// The exercise as the lab shipped it, when `lesson` is a shipped lesson whose
// folder's lesson.toml defines exercise `ex` differently; nullopt when the
// definitions agree, or the lesson or exercise is not one the lab ships.
std::optional<Exercise> shipped_exercise_if_edited(const Lesson& lesson, const Exercise& ex);

}  // namespace lab::lesson
